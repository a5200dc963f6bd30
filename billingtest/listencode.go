package billingtest

import (
	"github.com/billingapi/billing-go/billingtest/internal/scale"
	"github.com/billingapi/billing-go/internal/jsonwire"
)

// appendListInvoiceJSON appends inv as the list of all invoices writes it:
// the bytes of jsonwire.Marshal(flat(st.renderInvoice(inv, chargesEmpty,
// false))), written directly by scale.AppendListInvoice, or through the
// engine for the invoices it leaves to it. On error dst is returned as it
// was.
func (st *store) appendListInvoiceJSON(dst []byte, inv *Invoice) ([]byte, error) {
	if b, ok := scale.AppendListInvoice(dst, inv, st.customers[inv.CustomerID]); ok {
		return b, nil
	}
	b, err := jsonwire.Marshal(flat(st.renderInvoice(inv, chargesEmpty, false)))
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}
