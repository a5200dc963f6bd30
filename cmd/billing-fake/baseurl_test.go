package main

import (
	"bytes"
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest"
)

// The first line is a URL a client can use, whatever address the fake
// listens on: every interface is reached through the loopback.
func TestBaseURLIsOneAClientCanUse(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ addr, want string }{
		{"127.0.0.1:0", `^http://127\.0\.0\.1:\d+$`},
		{"0.0.0.0:0", `^http://127\.0\.0\.1:\d+$`},
		{"[::]:0", `^http://127\.0\.0\.1:\d+$`},
		{":0", `^http://127\.0\.0\.1:\d+$`},
	} {
		t.Run(tt.addr, func(t *testing.T) {
			t.Parallel()
			url, stop := startFake(t, "-addr", tt.addr)
			defer func() {
				if err := stop(); err != nil {
					t.Error(err)
				}
			}()
			if !regexp.MustCompile(tt.want).MatchString(url) {
				t.Fatalf("base URL %q, want %s", url, tt.want)
			}
			req, _ := http.NewRequest(http.MethodGet, url+"/v1/Invoices?pageSize=1", nil)
			req.Header.Set("Authorization", "Basic "+billingtest.DefaultAPIKey)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("GET at the base URL: %d", resp.StatusCode)
			}
		})
	}
}

func TestVersionFlag(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-version"}, &out, &out); err != nil {
		t.Fatal(err)
	}
	if line := out.String(); !strings.HasPrefix(line, "billing-fake "+billing.Version+" (module ") || strings.Count(line, "\n") != 1 {
		t.Errorf("-version printed %q", line)
	}
}
