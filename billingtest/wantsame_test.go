package billingtest

import (
	"reflect"
	"testing"
)

// wantSame fails t when got is not want, showing both whole.
func wantSame[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}
