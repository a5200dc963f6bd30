package billing

//go:generate go run ./internal/jsongen -o resources_json.go

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"sync"

	"github.com/billingapi/billing-go/internal/jsonwire"
	"github.com/billingapi/billing-go/internal/pager"
)

// Answers are decoded with the engine behind internal/jsonwire, straight
// from the stream. The resource types have generated, reflection-free
// decoders (resources_json.go), which the SDK calls directly; the rest go
// through the engine's reflection with encoding/json's semantics.

// errNullAnswer is the error of an answer that is null where a resource
// was expected: decoding null into a struct would silently leave it empty.
var errNullAnswer = errors.New("the answer is null, not the resource")

// decodeValue decodes exactly one JSON value from r into out: null, a
// second value or trailing bytes are errors, not something to ignore.
func decodeValue(r io.Reader, out any) error {
	dec := jsonwire.NewDecoder(r)
	if dec.PeekKind() == 'n' {
		return errNullAnswer
	}
	var err error
	if d, ok := out.(interface {
		decodeFrom(*jsonwire.Decoder, *jsonwire.Arena) error
	}); ok {
		var a jsonwire.Arena
		err = d.decodeFrom(dec, &a)
	} else {
		err = jsonwire.UnmarshalDecode(dec, out)
	}
	if err != nil {
		return err
	}
	return jsonwire.ExpectEOF(dec)
}

// maxPageItems bounds the items of a page when neither the request nor
// the answer's X-PageSize says how many it may hold (the reference's
// maxima differ per entity and are "never below 1,000"). An item of three
// bytes ({},) decodes into a struct of hundreds, so an unbounded page of a
// hostile 64 MiB answer would take gigabytes.
const maxPageItems = 100_000

// yieldEvery is how many items a page's decoding goes between yielding the
// processor. A page of 1,000 invoices is several milliseconds of CPU, and
// a prefetch pipeline decodes several at once: without a yield, a request
// that could go out (its slot is free) waited for a decoder's time slice
// to end, up to 10 ms, and the pipeline ran in waves.
const yieldEvery = 16

// pageItemLimit is the most items a page may hold: the page size asked
// for, else the one the answer declares, else maxPageItems.
func pageItemLimit(requested, declared int) int {
	switch {
	case requested > 0:
		return requested
	case declared > 0:
		return min(declared, maxPageItems)
	}
	return maxPageItems
}

// decodeList decodes a JSON array of at most limit items from r one item
// at a time, straight from the stream: the tokenizer buffers a little of
// the body, never the whole page. A null answer is an empty page. A page
// of more items is an ErrPagination.
func decodeList[T any](r io.Reader, items *[]T, limit int) error {
	dec := jsonwire.NewDecoder(r)
	switch k := dec.PeekKind(); k {
	case 'n':
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		return jsonwire.ExpectEOF(dec)
	case '[':
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
	case 0:
		_, err := dec.ReadToken() // the tokenizer's own error
		return err
	default:
		return fmt.Errorf("want a JSON array of items, got a JSON %s", jsonwire.KindName(k))
	}
	*items = make([]T, 0, min(limit, 1000))
	var zero T
	var a jsonwire.Arena // one for the page: its blocks are shared by its items
	for jsonwire.More(dec) {
		if len(*items) == limit {
			return fmt.Errorf("%w: the page holds more than %d items", ErrPagination, limit)
		}
		if len(*items)%yieldEvery == yieldEvery-1 {
			runtime.Gosched()
		}
		*items = append(*items, zero)
		it := &(*items)[len(*items)-1]
		var err error
		if d, ok := any(it).(interface {
			decodeFrom(*jsonwire.Decoder, *jsonwire.Arena) error
		}); ok {
			err = d.decodeFrom(dec, &a)
		} else {
			err = jsonwire.UnmarshalDecode(dec, it)
		}
		if err != nil {
			return err
		}
	}
	if err := jsonwire.End(dec); err != nil { // the closing ]
		return err
	}
	return jsonwire.ExpectEOF(dec)
}

// decodeListAnswer reads a whole 2xx list answer, within the client's
// limit and without a leading byte-order mark (readJSONAnswer), and
// decodes it into items, then closes the body.
// Reading first keeps a page's memory bounded by the limit, whatever a
// single value in it would make the tokenizer buffer, and at most
// maxItems items are decoded (see pageItemLimit), then scrubbed of what
// the answer echoes (see Client.scrubEchoes). A pipeline's slot, if
// the request holds one, is given back once the body is read. The body is read into a
// buffer from bodies, given back once decoded: the decoders copy whatever
// they keep.
func decodeListAnswer[T any](resp *http.Response, items *[]T, maxItems int, limit int64, bodies *bodyPool, claim *pager.Claim, scrub func(body []byte, out any)) error {
	defer drainAndClose(resp.Body)
	body, text, err := readJSONAnswer(resp, bodies.get(), limit)
	if err != nil {
		return err
	}
	claim.Release() // the request is done; decoding is ours
	defer claim.Decode()()
	defer bodies.put(body)
	if err := decodeList(bytes.NewBuffer(text), items, maxItems); err != nil { // a Buffer: read in place
		return err
	}
	scrub(text, items)
	return nil
}

// bodyPool recycles the buffers that list answers are read into. A page
// of 1,000 invoices is 2 to 4 MB: reading each into a new buffer made half
// of an iteration's allocations, and the collections that follow them.
type bodyPool struct {
	pool sync.Pool // *[]byte
}

// maxPooledBody is the largest buffer kept for reuse: a rare huge answer
// should not stay in memory for the pages after it.
const maxPooledBody = 16 << 20

// get returns an empty buffer, or nil when none is free.
func (p *bodyPool) get() []byte {
	if b, ok := p.pool.Get().(*[]byte); ok {
		return (*b)[:0]
	}
	return nil
}

// put gives b back once nothing refers to its bytes.
func (p *bodyPool) put(b []byte) {
	if cap(b) <= maxPooledBody {
		p.pool.Put(&b)
	}
}

// resource is a pointer to a type with a generated decoder, which decodes
// one member at a time.
type resource[T any] interface {
	*T
	decodeMember(dec *jsonwire.Decoder, a *jsonwire.Arena, name []byte) error
}

// decodeObject decodes a JSON object into v member by member, as
// encoding/json does: null leaves v as it is, and anything but an object
// is an error naming goType.
func decodeObject[T any, P resource[T]](dec *jsonwire.Decoder, a *jsonwire.Arena, v P, goType string) error {
	if null, err := jsonwire.BeginObject(dec, goType); null || err != nil {
		return err
	}
	for jsonwire.More(dec) {
		name, err := jsonwire.ReadName(dec)
		if err != nil {
			return err
		}
		if err := v.decodeMember(dec, a, name); err != nil {
			return err
		}
	}
	return jsonwire.End(dec)
}

// unmarshalResource is the UnmarshalJSON of the resource types: exactly
// one JSON value, decoded by v's generated decoder.
func unmarshalResource[T any, P arenaDecoder[T]](b []byte, v P) error {
	dec := jsonwire.NewDecoder(bytes.NewReader(b))
	var a jsonwire.Arena
	if err := v.decodeFrom(dec, &a); err != nil {
		return err
	}
	return jsonwire.ExpectEOF(dec)
}

// arenaDecoder is a pointer to a type with a generated decoder.
type arenaDecoder[T any] interface {
	*T
	decodeFrom(dec *jsonwire.Decoder, a *jsonwire.Arena) error
}

// readTimestamp reads a Timestamp as jsonwire.ReadUnmarshaler would, with
// a direct call instead of one through an interface: a page of 1,000
// invoices holds some 19,000 timestamps.
func readTimestamp(dec *jsonwire.Decoder, dst *Timestamp) error {
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	return dst.UnmarshalJSON(v)
}

// readPtr decodes into *dst, allocating it; null sets nil, as
// encoding/json does.
func readPtr[T any, P arenaDecoder[T]](dec *jsonwire.Decoder, a *jsonwire.Arena, dst **T) error {
	if dec.PeekKind() == 'n' {
		_, err := dec.ReadToken()
		*dst = nil
		return err
	}
	if *dst == nil {
		*dst = new(T)
	}
	return P(*dst).decodeFrom(dec, a)
}

// readSlice decodes an array into *dst as encoding/json does: elements
// already in the slice are decoded into (a repeated member merges), the
// slice ends at the last element read, an empty array is an empty,
// non-nil slice and null is nil.
func readSlice[T any, P arenaDecoder[T]](dec *jsonwire.Decoder, a *jsonwire.Arena, dst *[]T, goType string) error {
	null, err := jsonwire.BeginArray(dec, goType)
	if err != nil {
		return err
	}
	if null {
		*dst = nil
		return nil
	}
	s := *dst
	i := 0
	for jsonwire.More(dec) {
		switch {
		case i < len(s):
		case i < cap(s):
			s = s[:i+1]
		case s == nil:
			// Most arrays of a resource are short (an invoice's charges, its
			// payment schedules): room for a few saves the growths from 1.
			s = make([]T, 1, 4)
		default:
			var zero T
			s = append(s, zero)
		}
		if err := P(&s[i]).decodeFrom(dec, a); err != nil {
			*dst = s
			return err
		}
		i++
	}
	if err := jsonwire.End(dec); err != nil {
		*dst = s
		return err
	}
	if i == 0 {
		s = []T{}
	}
	*dst = s[:i]
	return nil
}
