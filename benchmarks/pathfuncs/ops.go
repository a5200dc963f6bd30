package main

import (
	"context"
	"fmt"
	"iter"

	billing "github.com/billingapi/billing-go"
)

// operation is one call measured in a process of its own.
type operation struct {
	name string
	call string // the call, as it reads in Go
	run  func(ctx context.Context, c *billing.Client, w workload) error
}

// workload is what the fake holds and how the iterators read it.
type workload struct {
	invoiceID int64 // an invoice that exists, for Get
	invoices  int   // how many invoices the fake holds, all of them listed
	pageSize  int   // ListOptions.PageSize of the iterations; 0 means nil params
}

func (w workload) params() *billing.ListInvoicesParams {
	if w.pageSize == 0 {
		return nil
	}
	return &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: w.pageSize}}
}

// operations are the calls of issue 21, in the order they are reported.
var operations = []operation{
	{"get", "client.Invoices.Get(ctx, id, nil)", func(ctx context.Context, c *billing.Client, w workload) error {
		inv, err := c.Invoices.Get(ctx, w.invoiceID, nil)
		if err != nil {
			return err
		}
		if inv.ID != w.invoiceID {
			return fmt.Errorf("Get(%d) returned invoice %d", w.invoiceID, inv.ID)
		}
		return nil
	}},
	{"all-prefetch8", "client.Invoices.All(ctx, params, billing.Prefetch(8))", func(ctx context.Context, c *billing.Client, w workload) error {
		return drain(c.Invoices.All(ctx, w.params(), billing.Prefetch(8)), w)
	}},
	{"stable-prefetch8", "client.Invoices.All(ctx, params, billing.Stable(&cur), billing.Prefetch(8))", func(ctx context.Context, c *billing.Client, w workload) error {
		var cur billing.Cursor
		return drain(c.Invoices.All(ctx, w.params(), billing.Stable(&cur), billing.Prefetch(8)), w)
	}},
	{"all", "client.Invoices.All(ctx, params)", func(ctx context.Context, c *billing.Client, w workload) error {
		return drain(c.Invoices.All(ctx, w.params()), w)
	}},
	{"stable", "client.Invoices.All(ctx, params, billing.Stable(&cur))", func(ctx context.Context, c *billing.Client, w workload) error {
		var cur billing.Cursor
		return drain(c.Invoices.All(ctx, w.params(), billing.Stable(&cur)), w)
	}},
}

// noOperation runs nothing after the setup: the reading "the process
// minus a process that only sets up" subtracts what it runs.
var noOperation = operation{"none", "(setup only)", func(context.Context, *billing.Client, workload) error { return nil }}

func lookupOperation(name string) (operation, bool) {
	if name == noOperation.name {
		return noOperation, true
	}
	for _, op := range operations {
		if op.name == name {
			return op, true
		}
	}
	return operation{}, false
}

// drain iterates seq to the end and checks that it yielded every invoice
// exactly once, so that a broken iteration cannot pass for a measured one.
func drain(seq iter.Seq2[billing.Invoice, error], w workload) error {
	seen := make(map[int64]bool, w.invoices)
	for inv, err := range seq {
		if err != nil {
			return err
		}
		if seen[inv.ID] {
			return fmt.Errorf("invoice %d yielded twice", inv.ID)
		}
		seen[inv.ID] = true
	}
	if len(seen) != w.invoices {
		return fmt.Errorf("iteration yielded %d invoices, the fake holds %d", len(seen), w.invoices)
	}
	return nil
}
