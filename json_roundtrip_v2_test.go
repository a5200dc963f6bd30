//go:build goexperiment.jsonv2 && go1.27

package billing_test

import (
	jsonv2std "encoding/json/v2"
	"testing"
)

// TestResourcesReadAndWriteTheSameJSONThroughEncodingJSONv2 runs the
// round trips of json_roundtrip_test.go through the standard library's
// encoding/json/v2 too, on Go 1.27 with its default jsonv2 experiment.
// (On Go 1.26 with GOEXPERIMENT=jsonv2, go-json-experiment is that
// package, and json_roundtrip_test.go covers it.)
func TestResourcesReadAndWriteTheSameJSONThroughEncodingJSONv2(t *testing.T) {
	t.Parallel()
	testRoundTrips(t, []jsonAPI{{
		"encoding/json/v2",
		func(b []byte, v any) error { return jsonv2std.Unmarshal(b, v) },
		func(v any) ([]byte, error) { return jsonv2std.Marshal(v) },
	}})
}
