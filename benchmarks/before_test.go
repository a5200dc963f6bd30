package benchmarks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	billing "github.com/billingapi/billing-go"
)

// decodeItemsBefore is the SDK's list decoding before issue 10, kept as
// the "Before" contender of BenchmarkDecodePage so that the speed-up is
// measured side by side, on the same bytes, in the same run: a guard
// pass over every byte for long digit runs, then encoding/json's
// streaming decoder, one item at a time, by reflection (the resource
// types have no encoding/json methods, so this is exactly the old path).
func decodeItemsBefore(r io.Reader) ([]billing.Invoice, error) {
	dec := json.NewDecoder(&digitGuard{r: r})
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, fmt.Errorf("want a JSON array of items, got %v", tok)
	}
	items := make([]billing.Invoice, 0, 1000)
	for dec.More() {
		var it billing.Invoice
		if err := dec.Decode(&it); err != nil {
			return nil, err
		}
		items = append(items, it)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return items, nil
}

// digitGuard is the old numberGuard: it fails at the first run of more
// than 256 digits.
type digitGuard struct {
	r   io.Reader
	run int
}

func (g *digitGuard) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	for _, c := range p[:n] {
		if c >= '0' && c <= '9' {
			if g.run++; g.run > 256 {
				return 0, errors.New("a run of more than 256 digits")
			}
		} else {
			g.run = 0
		}
	}
	return n, err
}
