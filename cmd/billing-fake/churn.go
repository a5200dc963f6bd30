package main

import (
	"flag"
	"fmt"

	"github.com/billingapi/billing-go/billingtest"
)

// churnFlags are the flags that make the fake a busy account (see
// billingtest's WithChurn); without a count the data changes only when
// asked.
type churnFlags struct {
	seed                               *int64
	every                              *int
	inserts, deletes, rekeys, modifies *int
	keepCount, aim                     *bool
}

func addChurnFlags(fs *flag.FlagSet) *churnFlags {
	return &churnFlags{
		seed:      fs.Int64("churn-seed", 0, "seed of the churn; the same seed and requests give the same changes"),
		every:     fs.Int("churn-every", 1, "with a churn count: change the data before every n-th list request"),
		inserts:   fs.Int("churn-inserts", 0, "rows to insert before a list answer, each like a row of the list"),
		deletes:   fs.Int("churn-deletes", 0, "rows to delete before a list answer"),
		rekeys:    fs.Int("churn-rekeys", 0, "rows to give a new key (the list's sort date) before a list answer"),
		modifies:  fs.Int("churn-modifies", 0, "rows to change in place (modifiedTimestamp now, sometimes amounts) before a list answer"),
		keepCount: fs.Bool("churn-keep-count", false, "pair every churn delete with an insert in the same second, so that deletes leave X-Count as it was"),
		aim:       fs.Bool("churn-aim", false, "aim the churn at the range the list's query reads on its sort field"),
	}
}

// option turns the flags into a billingtest option, nil when no count
// asks for churn.
func (c *churnFlags) option() (billingtest.Option, error) {
	counts := []struct {
		name string
		n    int
	}{{"-churn-every", *c.every}, {"-churn-inserts", *c.inserts}, {"-churn-deletes", *c.deletes}, {"-churn-rekeys", *c.rekeys}, {"-churn-modifies", *c.modifies}}
	for _, f := range counts {
		if f.n < 0 {
			return nil, fmt.Errorf("%s must not be negative", f.name)
		}
	}
	if *c.inserts+*c.deletes+*c.rekeys+*c.modifies == 0 {
		if *c.seed != 0 || *c.every != 1 || *c.keepCount || *c.aim {
			return nil, fmt.Errorf("-churn-seed, -churn-every, -churn-keep-count and -churn-aim need a count: -churn-inserts, -churn-deletes, -churn-rekeys or -churn-modifies")
		}
		return nil, nil
	}
	return billingtest.WithChurn(billingtest.Churn{
		Seed: *c.seed, Every: *c.every,
		Inserts: *c.inserts, Deletes: *c.deletes, Rekeys: *c.rekeys, Modifies: *c.modifies,
		KeepCount: *c.keepCount, Aim: *c.aim,
	}), nil
}
