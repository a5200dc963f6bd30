// Package query renders and parses the filter expressions that the billing
// API's list endpoints take in their "query" URL parameter, for example
//
//	customerId:42;postedTimestamp:2024-01-01|2024-02-01;erpId:ABC*;Customer.Status:Active,Draft;crmId:[empty]
//
// The SDK builds expressions from typed filter structs with [Build]; a server
// (such as a test fake) reads them back with [Parse]. The two are exact
// inverses: for every [Condition] made by this package's constructors or by
// Build, Parse(expr.String()) returns an [Expr] deep-equal to expr, whatever
// characters the values contain. That is what keeps a user-supplied value from
// adding, removing or reshaping conditions.
//
// # What a user needs
//
// A program that uses the SDK needs a handful of names: the filter
// structs of package billing (InvoiceFilter and the others) have fields
// of this package's types, [Text], [Ints], [TimeRange] and
// [DecimalRange], and the SDK renders them with Build; billing's
// ListOptions sorts with a [Sort] and its [Order]. To write an expression
// by hand, for a filter the structs do not model or for billing's
// Client.Do, there are the Cond* constructors and [Expr].
//
// The rest of the package reads expressions back: [Parse], the
// [Condition] kinds, [Field], [FieldKind] and [SyntaxError] are for a
// server or a fake, and billingtest, the SDK's fake, is their user.
//
// # Grammar
//
//	expr      = [ condition *( ";" condition ) [ ";" ] ]
//	condition = name ":" value
//	name      = segment *( "." segment )    ; segment: a letter, then letters, digits or "_"
//	value     = "[empty]"                  ; Empty: null or empty string
//	          / bound "|" bound            ; Range: lower (inclusive) | upper (exclusive); "" is an open end
//	          / member 1*( "," member )    ; Set: alternatives, none empty
//	          / segment *( "*" segment )   ; Match: "*" is a wildcard; no two "*" in a row
//
// The name ends at the first ":"; a ":" inside a value is never structural.
// Kinds are told apart on the raw text, before any unescaping, so an escaped
// "|", "," or "*" is plain data. A raw "[" or "]" anywhere but in the exact
// value "[empty]" is a syntax error, which keeps a literal value "[empty]"
// (written %5Bempty%5D) distinct from the Empty condition.
//
// # Escaping
//
// The reference asks for characters with a meaning in a query string to be
// URL-encoded inside values. Rendering therefore writes each of these bytes as
// "%" followed by two uppercase hex digits:
//
//	%  ;  :  |  ,  *  [  ]  &  =  +  #  ?   and the control bytes 0x00–0x1F and 0x7F
//
// Every other character, including spaces and letters of any script, is written
// as is. The one exception is ":" in range bounds, which stays literal because
// the reference's date-time bounds (YYYY-MM-DDTHH:MM:SS) contain it; string
// values of Match and Set conditions still escape ":" so that a server that
// splits at a later ":" cannot be confused.
//
// Parsing unescapes each piece strictly: "%" must be followed by two hex
// digits (either case), "+" stays "+", and the result must be valid UTF-8.
// Values must be valid UTF-8 when building, too.
//
// The expression is escaped once more, as a whole, when the SDK puts it into
// the URL (url.Values does that); this package deals only with the expression
// text.
//
// # Invalid conditions
//
// The constructors never fail, so that they can be used inside composite
// literals; [Condition.Validate] and [Expr.Validate] report a bad name or
// value, and [Build] reports it together with the Go field. Rendering an
// invalid condition never panics and fails closed: the text it produces is
// rejected by Parse (and so, presumably, by the service with a 400) instead
// of silently meaning something else.
//
// # Sorting
//
// Sorting is not part of the expression; [Sort] renders the sortExpression
// and sortOrder URL parameters.
package query
