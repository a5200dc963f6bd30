package httpheader

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestValidNameAndValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		valid func(string) bool
		want  map[string]bool
	}{
		{"ValidName", ValidName, map[string]bool{
			"X-Request-Id": true, "x_y.z~1!#$%&'*+^`|": true, "": false, "X Y": false, "X:Y": false,
			"X(Y": false, "X-Ü": false, "X\x7fY": false, "X\tY": false, "X/Y": false,
		}},
		{"ValidValue", ValidValue, map[string]bool{
			"": true, "app/1.0 (x; y)": true, "a\tb": true, "Müller": true, "a\x01b": false,
			"a\x7fb": false, "a\rb": false, "a\nb": false, "a\x00b": false, "\x1b[31m": false,
		}},
	}
	for _, tt := range tests {
		for in, want := range tt.want {
			if got := tt.valid(in); got != want {
				t.Errorf("%s(%q) = %v, want %v", tt.name, in, got, want)
			}
		}
	}
}

// What these accept, net/http's client sends; what they refuse, it
// refuses: checked against a request written to a server.
func TestNetHTTPAgrees(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(srv.Close)
	for _, h := range []struct{ name, value string }{
		{"X-Ok", "fine\tvalue"}, {"X-Ü", "v"}, {"X(Y", "v"}, {"X-Y", "a\x01b"}, {"X-Y", "a\x7fb"}, {"X-Y", "Müller"},
	} {
		req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header[h.name] = []string{h.value}
		resp, err := srv.Client().Do(req)
		if err == nil {
			resp.Body.Close()
		}
		if sent, valid := err == nil, ValidName(h.name) && ValidValue(h.value); sent != valid {
			t.Errorf("%q: %q: net/http sent it: %v; ValidName and ValidValue: %v", h.name, h.value, sent, valid)
		}
	}
}
