package billingtest

import (
	"reflect"
	"testing"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest/internal/preview"
	"github.com/billingapi/billing-go/query"
)

// TestSchemasFollowSDK checks that each endpoint's filter names are
// exactly the SDK filter struct's, with the same kinds, and that the enum
// values the fake accepts are the ones the SDK knows.
func TestSchemasFollowSDK(t *testing.T) {
	t.Parallel()
	check := func(name string, filter any, fields []string, kinds []query.FieldKind, enums map[string][]string) {
		want, err := query.Fields(filter)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) != len(fields) {
			t.Fatalf("%s: %d names, SDK has %d", name, len(fields), len(want))
		}
		for i, f := range want {
			if fields[i] != f.Name || kinds[i] != f.Kind {
				t.Errorf("%s: name %d is %s %v, SDK has %s %v", name, i, fields[i], kinds[i], f.Name, f.Kind)
			}
		}
		// The enum values must all be known to the SDK's enum type.
		ft := reflect.TypeOf(filter)
		for i, f := range want {
			if f.Kind != query.EnumField {
				continue
			}
			elem := ft.FieldByIndex([]int{fieldIndex(ft, f.GoName)}).Type.Elem()
			vals := enums[f.Name]
			if len(vals) == 0 {
				t.Errorf("%s: enum %s has no values", name, f.Name)
			}
			for _, v := range vals {
				x := reflect.New(elem).Elem()
				x.SetString(v)
				if k, ok := x.Interface().(interface{ IsKnown() bool }); !ok || !k.IsKnown() {
					t.Errorf("%s: %s value %q is not known to %v", name, want[i].Name, v, elem)
				}
			}
		}
	}
	describe := func(sc any) ([]string, []query.FieldKind, map[string][]string) {
		v := reflect.ValueOf(sc).Elem().FieldByName("Fields")
		var names []string
		var kinds []query.FieldKind
		enums := map[string][]string{}
		for i := range v.Len() {
			f := v.Index(i)
			names = append(names, f.FieldByName("Name").String())
			kinds = append(kinds, query.FieldKind(f.FieldByName("Kind").Int()))
			vals := f.FieldByName("Get").FieldByName("Values")
			for j := range vals.Len() {
				enums[names[i]] = append(enums[names[i]], vals.Index(j).String())
			}
		}
		return names, kinds, enums
	}
	for _, c := range []struct {
		name   string
		filter any
		schema any
	}{
		{"invoices", billing.InvoiceFilter{}, invoiceSchema},
		{"customer invoices", billing.CustomerInvoiceFilter{}, customerInvoiceSchema},
		{"summaries", billing.InvoiceSummaryFilter{}, summarySchema},
		{"items", billing.SubscriptionProductItemFilter{}, itemSchema},
		{"subscribers", billing.SubscriberFilter{}, preview.Schema},
	} {
		names, kinds, enums := describe(c.schema)
		check(c.name, c.filter, names, kinds, enums)
	}
}

func fieldIndex(t reflect.Type, name string) int {
	f, _ := t.FieldByName(name)
	return f.Index[0]
}

// TestCompileCombines checks that conditions are and-ed and names are
// matched case-insensitively.
func TestCompileCombines(t *testing.T) {
	t.Parallel()
	_, pred, err := itemSchema.Parse("NAME:a*;Status:active;description:*x", false)
	if err != nil {
		t.Fatal(err)
	}
	item := func(name, desc string, status billing.ItemStatus) itemRow {
		return &billing.SubscriptionProductItem{Name: name, Description: desc, Status: status}
	}
	if !pred(item("ab", "yx", billing.ItemStatusActive)) {
		t.Error("all three hold, no match")
	}
	for _, it := range []itemRow{item("b", "x", billing.ItemStatusActive), item("a", "x", billing.ItemStatusDeleted), item("a", "xy", billing.ItemStatusActive)} {
		if pred(it) {
			t.Errorf("%+v matches though one condition fails", *it)
		}
	}
	if _, p, err := itemSchema.Parse("", false); err != nil || p != nil {
		t.Errorf("empty query: %v, %v; want no predicate", p != nil, err)
	}
}
