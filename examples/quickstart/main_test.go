package main

import (
	"context"
	"strings"
	"testing"
)

// The quickstart is the README's first command: it must run with no
// configuration and show every step.
func TestQuickstartRunsOnTheFake(t *testing.T) {
	t.Setenv("BILLING_BASE_URL", "")
	t.Setenv("BILLING_API_KEY", "")
	var out strings.Builder
	if err := run(context.Background(), &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"Started the bundled fake",
		"== A filtered, sorted page",
		"== Paging with the iterator",
		"== Reading an invoice with grouped charges",
		"== Handling an error", "does not exist: status 404",
		"== Writing off an invoice", "a second write-off is refused",
		"== Replacing a credit card", "************1111",
		"== Creating a sales tracking code",
		"== Previewing a bulk price change",
		"Done.",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "4111111111111111") {
		t.Error("the quickstart printed a full card number")
	}
}
