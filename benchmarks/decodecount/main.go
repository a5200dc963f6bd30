// Command decodecount decodes the page of BenchmarkDecodePage a given
// number of times in one process, with the contender's code, so that an
// instruction counter can measure a page's decoding where wall time
// cannot (a shared machine). Instructions are the same whatever else
// runs; a page's cost is the count of -n 11 less that of -n 1, over 10,
// which leaves out the process's start and the reading of the page.
//
// From the module root:
//
//	go run ./benchmarks/decodecount -write page.json
//	go build -o decodecount ./benchmarks/decodecount
//	for n in 1 11; do
//	  GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind \
//	    --callgrind-out-file=SDK.$n.out ./decodecount -page page.json -contender SDK -n $n
//	done
//
// GOMAXPROCS=1 keeps idle processors from spinning, which callgrind
// would count, and keeps the garbage collector's work in the count;
// asyncpreemptoff because callgrind cannot follow the runtime's
// preemption signals. The contenders are those of BenchmarkDecodePage
// that BENCHMARKS.md compares in instructions:
//
//   - SDK: Invoices.List over a transport that answers the page from
//     memory, as BenchmarkDecodePage/SDK;
//   - TokenPass: the engine's tokenizer with its default options
//     reading every token;
//   - TokenPassLax: the same with the options the SDK decodes with.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strconv"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/benchmarks"
	"github.com/go-json-experiment/json/jsontext"
)

func main() {
	write := flag.String("write", "", "write the page to this file and exit")
	page := flag.String("page", "", "the page to decode, written by -write")
	contender := flag.String("contender", "SDK", "SDK, TokenPass or TokenPassLax")
	n := flag.Int("n", 1, "how many times to decode the page")
	flag.Parse()
	if err := run(*write, *page, *contender, *n); err != nil {
		log.Fatal(err)
	}
}

func run(write, page, contender string, n int) error {
	if write != "" {
		body, err := benchmarks.DecodePageBody()
		if err != nil {
			return err
		}
		return os.WriteFile(write, body, 0o644)
	}
	if page == "" {
		return errors.New("-page or -write is needed")
	}
	body, err := os.ReadFile(page)
	if err != nil {
		return err
	}
	decode, err := decoder(contender, body)
	if err != nil {
		return err
	}
	for range n {
		if err := decode(); err != nil {
			return err
		}
	}
	return nil
}

// decoder returns the contender's decoding of body, once per call.
func decoder(contender string, body []byte) (func() error, error) {
	switch contender {
	case "SDK":
		c, err := memoryClient(body)
		if err != nil {
			return nil, err
		}
		params := &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: 1000}}
		return func() error {
			p, err := c.Invoices.List(context.Background(), params)
			if err == nil && len(p.Items) != 1000 {
				err = fmt.Errorf("%d items, want 1000", len(p.Items))
			}
			return err
		}, nil
	case "TokenPass":
		return func() error { return tokenPass(body) }, nil
	case "TokenPassLax":
		return func() error {
			return tokenPass(body, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
		}, nil
	}
	return nil, fmt.Errorf("unknown contender %q", contender)
}

// tokenPass reads every token of body and builds nothing.
func tokenPass(body []byte, opts ...jsontext.Options) error {
	dec := jsontext.NewDecoder(bytes.NewReader(body), opts...)
	for {
		if _, err := dec.ReadToken(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

// memoryClient is an SDK client whose transport answers every request
// with body and the paging headers of a first page of 1,000 of 2,000.
func memoryClient(body []byte) (*billing.Client, error) {
	hdr := http.Header{}
	hdr.Set("Content-Type", "application/json; charset=utf-8")
	hdr.Set("Content-Length", strconv.Itoa(len(body)))
	for k, v := range map[string]string{
		"X-Count": "1000", "X-MaxCount": "2000", "X-CurrentPage": "0", "X-NextPage": "-1",
		"X-PreviousPage": "-1", "X-PageSize": "1000", "X-MaxPageIndex": "1",
		"X-SortOrder": "Ascending", "X-SortExpression": "id",
	} {
		hdr.Set(k, v)
	}
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{
			StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: hdr.Clone(), Body: io.NopCloser(bytes.NewReader(body)),
			ContentLength: int64(len(body)), Request: r,
		}, nil
	})
	return billing.NewClient("key", billing.WithBaseURL("http://127.0.0.1"), billing.WithHTTPClient(&http.Client{Transport: rt}))
}

// roundTripFunc is an http.RoundTripper made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
