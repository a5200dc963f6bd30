package benchmarks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"testing"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/internal/jsonwire"
)

// decodeItemsBefore is the SDK's list decoding before issue 10, kept as
// the "Before" contender of BenchmarkDecodePage so that the speed-up is
// measured side by side, on the same bytes, in the same run: a guard
// pass over every byte for long digit runs, then encoding/json's
// streaming decoder, one item at a time, by reflection. It decodes into
// exactInvoice, the resource types' shape without methods, as the
// resource types were then: they have since gained generated
// UnmarshalJSON methods, the SDK's decoder, which encoding/json would
// call. Amounts go through decimal's UnmarshalJSON as they did then;
// timestamps through today's Timestamp.UnmarshalJSON. item is
// exactInvoice(), built once by the caller so that building it is not
// measured.
func decodeItemsBefore(item reflect.Type, r io.Reader) (reflect.Value, error) {
	dec := json.NewDecoder(&digitGuard{r: r})
	tok, err := dec.Token()
	if err != nil {
		return reflect.Value{}, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return reflect.Value{}, fmt.Errorf("want a JSON array of items, got %v", tok)
	}
	items := reflect.MakeSlice(reflect.SliceOf(item), 0, 1000)
	for dec.More() {
		it := reflect.New(item)
		if err := dec.Decode(it.Interface()); err != nil {
			return reflect.Value{}, err
		}
		items = reflect.Append(items, it.Elem())
	}
	if _, err := dec.Token(); err != nil {
		return reflect.Value{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return reflect.Value{}, errors.New("unexpected data after the JSON value")
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

// TestBeforeMatchesSDK checks that the Before contender of benchmark (b)
// decodes the page the SDK decodes, on the wire compared.
func TestBeforeMatchesSDK(t *testing.T) {
	t.Parallel()
	bd := answerBodies(t)
	c := memoryClient(t, bd.page, pageHeaders(decodeItems, 2000, len(bd.page)))
	sdk, err := c.Invoices.List(context.Background(), &billing.ListInvoicesParams{ListOptions: billing.ListOptions{PageSize: decodeItems}})
	if err != nil {
		t.Fatal(err)
	}
	before, err := decodeItemsBefore(exactInvoice(), bytes.NewReader(bd.page))
	if err != nil {
		t.Fatal(err)
	}
	sdkJSON, err1 := jsonwire.Marshal(sdk.Items)
	beforeJSON, err2 := jsonwire.Marshal(before.Interface())
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if before.Len() != decodeItems || !bytes.Equal(sdkJSON, beforeJSON) {
		t.Errorf("the SDK and Before decoded different invoices (%d and %d)", len(sdk.Items), before.Len())
	}
}

// TestTokenPassesAgree checks that both token passes of benchmark (b)
// read the whole page, token for token.
func TestTokenPassesAgree(t *testing.T) {
	t.Parallel()
	body := answerBodies(t).page
	strict, lax := tokenPass(t, body), tokenPass(t, body, laxTokenizer...)
	if strict != lax || strict < decodeItems*50 {
		t.Errorf("%d tokens with the default options, %d with the SDK's; want the same, at least %d", strict, lax, decodeItems*50)
	}
}
