package billing

// Ptr returns a pointer to v, for optional parameters:
//
//	billing.WriteOffParams{InvoiceID: 42, Amount: billing.Ptr(balance)}
func Ptr[T any](v T) *T { return &v }
