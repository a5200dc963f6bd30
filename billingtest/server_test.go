package billingtest

import (
	"strings"
	"testing"
)

// A fake built with NewHandler does not listen; asking it for a client
// must say so rather than fail on an empty base URL.
func TestClientNeedsAListeningFake(t *testing.T) {
	t.Parallel()
	srv, err := NewHandler()
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		msg, _ := recover().(string)
		if !strings.Contains(msg, "Client needs a listening fake") {
			t.Errorf("panic = %q", msg)
		}
	}()
	srv.Client()
}
