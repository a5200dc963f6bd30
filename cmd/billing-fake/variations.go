package main

import (
	"flag"
	"fmt"

	"github.com/billingapi/billing-go/billingtest"
)

// variationFlags are the flags that make the fake another service the
// reference allows (see billingtest's WithTieOrder and the options beside
// it); by default it behaves as billingtest does by default.
type variationFlags struct {
	tieOrder       *string
	pageCap        *int
	honestCap      *bool
	otherHeaders   *bool
	stampDigits    *int
	stampZone      *string
	unknownMembers *bool
	unlistedEnums  *bool
	all            *int
}

func addVariationFlags(fs *flag.FlagSet) *variationFlags {
	return &variationFlags{
		tieOrder:       fs.String("tie-order", "id", "order of rows with equal sort keys: id, id-desc, insertion or random (new on every request)"),
		pageCap:        fs.Int("page-cap", 0, "largest page of every list, when not 0 (default: the fake's 1000)"),
		honestCap:      fs.Bool("page-cap-honest", false, "with -page-cap: say the cap in X-PageSize and count page numbers in it (default: echo the size asked for)"),
		otherHeaders:   fs.Bool("other-paging-headers", false, "X-NextPage is n+1 on every page and X-MaxPageIndex the last page's index"),
		stampDigits:    fs.Int("timestamp-digits", -2, "fractional digits of timestamps, 0 to 7, or -1 for up to 7 with trailing zeros trimmed (default: as the SDK writes them)"),
		stampZone:      fs.String("timestamp-zone", "", `with -timestamp-digits: "", "Z" or "+00:00" after every timestamp`),
		unknownMembers: fs.Bool("unknown-members", false, "add a member the reference does not list to every JSON object of every answer"),
		unlistedEnums:  fs.Bool("unlisted-enum-values", false, "filters on enum fields accept values the reference does not list"),
		all:            fs.Int("all-variations", 0, "when not 0: every variation at once, with this page cap (random ties, silent cap, other paging headers, 7 digits without zone, unknown members)"),
	}
}

// options turns the flags into billingtest options.
func (v *variationFlags) options() ([]billingtest.Option, error) {
	var opts []billingtest.Option
	ties := map[string]billingtest.TieOrder{"id": billingtest.TieByID, "id-desc": billingtest.TieByIDDescending, "insertion": billingtest.TieByInsertion, "random": billingtest.TieRandom}
	tie, ok := ties[*v.tieOrder]
	if !ok {
		return nil, fmt.Errorf("-tie-order must be id, id-desc, insertion or random, got %q", *v.tieOrder)
	}
	opts = append(opts, billingtest.WithTieOrder(tie))
	switch {
	case *v.pageCap < 0:
		return nil, fmt.Errorf("-page-cap must not be negative")
	case *v.pageCap > 0:
		opts = append(opts, billingtest.WithPageCap(*v.pageCap, *v.honestCap))
	case *v.honestCap:
		return nil, fmt.Errorf("-page-cap-honest needs -page-cap")
	}
	if *v.otherHeaders {
		opts = append(opts, billingtest.WithOtherPagingHeaders())
	}
	switch {
	case *v.stampDigits != -2:
		opts = append(opts, billingtest.WithTimestampDigits(*v.stampDigits, *v.stampZone))
	case *v.stampZone != "":
		return nil, fmt.Errorf("-timestamp-zone needs -timestamp-digits")
	}
	if *v.unknownMembers {
		opts = append(opts, billingtest.WithUnknownMembers())
	}
	if *v.unlistedEnums {
		opts = append(opts, billingtest.WithUnlistedEnumValues())
	}
	if *v.all < 0 {
		return nil, fmt.Errorf("-all-variations must not be negative")
	}
	if *v.all > 0 {
		opts = append(opts, billingtest.WithAllVariations(*v.all))
	}
	return opts, nil
}
