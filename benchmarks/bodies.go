package benchmarks

import (
	"context"
	"fmt"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
	"github.com/billingapi/billing-go/internal/jsonwire"
)

// Fixtures shared by the benchmarks and tests, built once per process.

const (
	// seed picks the generated data of every fixture.
	seed = 1
	// bigTotal is the number of invoices of benchmarks (c) and (d), and
	// the number the memory test iterates.
	bigTotal = 100_000
	// listItems is the number of invoices of benchmark (a)'s page.
	listItems = 100
	// decodeItems is the number of invoices of benchmark (b)'s page.
	decodeItems = 1000
)

// DecodePageBody returns the page that BenchmarkDecodePage decodes: 1,000
// full invoices with their charges, encoded as the service encodes them,
// from the fake generated with the benchmarks' seed. The command
// benchmarks/decodecount decodes it for counting instructions.
func DecodePageBody() ([]byte, error) {
	bd, err := buildBodies()
	return bd.page, err
}

// bodies are realistic API answers, encoded with jsonwire as the service
// encodes them (amounts as bare JSON numbers): full invoices with their
// charges, as the fake renders them.
type bodies struct {
	// list is one page of listItems invoices of one customer, listCustomer.
	list         []byte
	listCustomer int64
	// page is one page of decodeItems invoices.
	page []byte
}

// buildBodies builds the answers of benchmarks (a) and (b) from a
// generated fake of 2,000 invoices over 10 customers (so that one
// customer has at least 100 invoices).
func buildBodies() (bodies, error) {
	srv := billingtest.NewServer(billingtest.WithGenerated(billingtest.GenerateOptions{Seed: seed, Invoices: 2000, Customers: 10}))
	defer srv.Close()
	var ids []int64
	byCustomer := map[int64][]int64{}
	for inv, err := range srv.Client().Invoices.All(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 1000}}) {
		if err != nil {
			return bodies{}, err
		}
		ids = append(ids, inv.ID)
		byCustomer[inv.CustomerID] = append(byCustomer[inv.CustomerID], inv.ID)
	}
	full := func(ids []int64) ([]byte, error) {
		invs := make([]billing.Invoice, len(ids))
		for i, id := range ids {
			inv, ok := srv.Invoice(id)
			if !ok {
				return nil, fmt.Errorf("invoice %d vanished", id)
			}
			invs[i] = inv
		}
		return jsonwire.Marshal(invs)
	}
	var out bodies
	var err error
	for cust, custIDs := range byCustomer {
		if len(custIDs) >= listItems && (out.listCustomer == 0 || cust < out.listCustomer) {
			out.listCustomer = cust
		}
	}
	if out.listCustomer == 0 {
		return out, fmt.Errorf("no customer with %d invoices", listItems)
	}
	if out.list, err = full(byCustomer[out.listCustomer][:listItems]); err != nil {
		return out, err
	}
	if len(ids) < decodeItems {
		return out, fmt.Errorf("%d invoices, want %d", len(ids), decodeItems)
	}
	out.page, err = full(ids[:decodeItems])
	return out, err
}
