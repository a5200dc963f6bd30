package billing

import (
	"bytes"
	"errors"
	"net/http"
	"strings"
)

// utf8BOM is the UTF-8 byte-order mark. JSON text must not begin with one
// (RFC 8259, section 8.1), but a parser may ignore it, and services on
// IIS and .NET send one before their JSON; the SDK's JSON engine refuses
// it, so it is dropped before decoding.
const utf8BOM = "\xEF\xBB\xBF"

// withoutBOM returns body without the UTF-8 byte-order mark it may start
// with: one mark, at the very start only. A second mark, or one after
// white space or inside the value, is left to the decoder, which refuses
// it: that is not JSON text with a mark in front but a broken answer.
//
// Every JSON body the SDK decodes loses its mark so: each error answer's
// envelope, here (apiError), and each 2xx answer, in readJSONAnswer (the
// same call written out, one function less on every call's path),
// which decodeJSON (single resources, bulk, Client.Do) and
// decodeListAnswer (pages of every list and iteration) read with. A body
// the SDK does not decode (the draft PDF, a Client.Do answer discarded
// with a nil out) is never touched: the caller gets its bytes as they
// came.
func withoutBOM(body []byte) []byte {
	return bytes.TrimPrefix(body, []byte(utf8BOM))
}

// isJSONMediaType accepts the media types of a JSON answer.
func isJSONMediaType(mt string) bool {
	return mt == "application/json" || mt == "text/json" || strings.HasSuffix(mt, "+json")
}

// readJSONAnswer reads a whole 2xx JSON answer for decoding: its content
// type checked, its body read within limit into buf when it has room (see
// readAll), then without a leading byte-order mark. It returns the body
// as read, for a recycled buffer to be given back, and the JSON text in
// it.
func readJSONAnswer(resp *http.Response, buf []byte, limit int64) (read, text []byte, err error) {
	if err := checkContentType(resp, "application/json", isJSONMediaType); err != nil {
		return nil, nil, err
	}
	read, err = readAll(buf, resp.Body, resp.ContentLength, limit)
	if err != nil {
		if errors.Is(err, ErrResponseTooLarge) {
			// Closed at the limit: whoever drains the body next reads
			// nothing more of an answer that may never end.
			_ = resp.Body.Close()
		}
		return nil, nil, err
	}
	return read, bytes.TrimPrefix(read, []byte(utf8BOM)), nil // as withoutBOM
}
