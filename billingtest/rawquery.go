package billingtest

import (
	"net/url"
	"slices"
	"strings"
)

// knownParams are the query parameters the fake reads, as the reference
// spells them. The service binds parameter names without regard to case,
// so ?PageSize=10 is pageSize.
var knownParams = []string{"pageSize", "pageNumber", "query", "sortOrder", "sortExpression", "showTrackedItems", "groupCharges"}

// parseRawQuery reads a query string as the service does, not as
// url.ParseQuery does: only & separates parameters, so a raw ; stays part
// of the value (?query=name:Seat*;status:Deleted is one filter of two
// pairs, where url.ParseQuery drops the whole pair). + is a space and
// %XX escapes are decoded; a value whose escapes are broken is kept as
// sent rather than dropped. Names the fake knows are folded to the
// reference's spelling; others are kept as sent (and ignored).
func parseRawQuery(raw string) url.Values {
	q := url.Values{}
	for pair := range strings.SplitSeq(raw, "&") {
		if pair == "" {
			continue
		}
		name, value, _ := strings.Cut(pair, "=")
		name = unescapeQuery(name)
		if name == "" {
			continue
		}
		if i := slices.IndexFunc(knownParams, func(k string) bool { return strings.EqualFold(name, k) }); i >= 0 {
			name = knownParams[i]
		}
		q[name] = append(q[name], unescapeQuery(value))
	}
	return q
}

func unescapeQuery(s string) string {
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return strings.ReplaceAll(s, "+", " ")
}
