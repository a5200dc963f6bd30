package wirejson

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
	"unicode"
)

// field is one JSON member of a struct, after encoding/json's rules for
// tags and embedded structs have been applied.
type field struct {
	name      string
	nameJSON  string // `"name":`, escaped, written as is
	tagged    bool   // name came from the json tag
	index     []int  // path through embedded structs, for reflect.Value.Field
	omitEmpty bool
	omitZero  bool
	isZero    func(reflect.Value) bool // omitzero via an IsZero method; nil means reflect's IsZero
	quoted    bool                     // ",string" applies
	enc       encoderFunc
}

// typeFields returns the fields encoding/json would encode for struct type t,
// in its order. It is a breadth-first walk through embedded structs followed
// by Go's dominance rules as amended by encoding/json: at the shallowest
// depth a tagged field beats untagged ones, and otherwise equal candidates
// cancel out.
func typeFields(t reflect.Type) []field {
	// embedded is a struct queued for scanning: t itself, then the
	// embedded structs found one level deeper at a time.
	type embedded struct {
		typ   reflect.Type
		index []int
	}
	current := []embedded{}
	next := []embedded{{typ: t}}

	// Count of each embedded struct type queued at the current level and
	// the next; a type embedded twice at one level must annihilate.
	var count, nextCount map[reflect.Type]int
	visited := map[reflect.Type]bool{}
	var fields []field

	for len(next) > 0 {
		current, next = next, current[:0]
		count, nextCount = nextCount, map[reflect.Type]int{}

		for _, f := range current {
			if visited[f.typ] {
				continue
			}
			visited[f.typ] = true

			for i := range f.typ.NumField() {
				sf := f.typ.Field(i)
				if sf.Anonymous {
					et := sf.Type
					if et.Kind() == reflect.Pointer {
						et = et.Elem()
					}
					// An unexported embedded struct can still promote
					// exported fields; other unexported embeddings cannot.
					if !sf.IsExported() && et.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !isValidTag(name) {
					name = ""
				}
				index := make([]int, len(f.index)+1)
				copy(index, f.index)
				index[len(f.index)] = i

				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}

				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					tagged := name != ""
					if name == "" {
						name = sf.Name
					}
					nf := field{
						name:      name,
						nameJSON:  string(appendString(nil, name)) + ":",
						tagged:    tagged,
						index:     index,
						omitEmpty: hasOption(opts, "omitempty"),
						omitZero:  hasOption(opts, "omitzero"),
						quoted:    hasOption(opts, "string") && isQuotable(ft.Kind()),
					}
					if nf.omitZero {
						nf.isZero = isZeroFunc(sf.Type)
					}
					fields = append(fields, nf)
					if count[f.typ] > 1 {
						// A second copy is enough for the dominance
						// pass to see the conflict.
						fields = append(fields, fields[len(fields)-1])
					}
					continue
				}

				nextCount[ft]++
				if nextCount[ft] == 1 {
					next = append(next, embedded{typ: ft, index: index})
				}
			}
		}
	}

	slices.SortFunc(fields, func(a, b field) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a.index), len(b.index)); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return +1
		}
		return slices.Compare(a.index, b.index)
	})

	out := fields[:0]
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].name == fields[i].name {
			j++
		}
		if dominant, ok := dominantField(fields[i:j]); ok {
			out = append(out, dominant)
		}
		i = j
	}
	fields = out
	slices.SortFunc(fields, func(a, b field) int { return slices.Compare(a.index, b.index) })
	return fields
}

// dominantField picks the field that wins among fields sharing a name,
// sorted by depth and then tagged-first. Two candidates equal on both
// counts are the Go ambiguity error, which JSON resolves by dropping both.
func dominantField(fields []field) (field, bool) {
	if len(fields) > 1 && len(fields[0].index) == len(fields[1].index) && fields[0].tagged == fields[1].tagged {
		return field{}, false
	}
	return fields[0], true
}

// isValidTag reports whether encoding/json accepts s as a member name:
// letters, digits and punctuation other than quote, backslash and comma.
func isValidTag(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// hasOption reports whether the comma-separated tag options contain name.
func hasOption(opts, name string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == name {
			return true
		}
	}
	return false
}

// isQuotable reports whether ",string" applies to a field of kind k.
func isQuotable(k reflect.Kind) bool {
	switch k {
	case reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64,
		reflect.String:
		return true
	}
	return false
}
