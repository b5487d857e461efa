package fluxsubst

import (
	"strings"
	"unicode/utf8"

	yamlv2 "go.yaml.in/yaml/v2"
)

// Flux substitutes into the whole printed object and reads the whole text
// back; printing and reading were most of a Flux repository's following
// (home-ops-bykaj: 130 ms of the parent's 300 ms a run). Text outside
// ${...} passes through envsubst unchanged (only "$" means anything to it
// there), and yaml.v2 prints a one-line string the same wherever it
// stands in block context (it breaks a line only at a space past column 80,
// which maxUnbroken keeps clear of), so an object whose strings with "$"
// each print on one line is substituted string by string: each one's
// printed text through envsubst, and a changed one read back as yaml.v2
// reads that line, in the same place (a mapping's value or a sequence's
// item). What reading the whole text back would do to the rest is nothing
// for strings (printed to be read back as they are), integers, booleans
// and nulls; an object holding anything else (a float, which the round
// trip may turn into an integer; a "<<" key, which yaml.v2 reads as a
// merge; a "$" in a key; a string printed on several lines or outside
// printable ASCII) goes the whole way, as does any string whose result
// does not read back alone (an unclosed quote or flow collection, an
// alias, a block scalar's indicator), since in the whole text it might
// read differently. FuzzSubstituteFast holds the two ways equal.

// scalarSubst substitutes into one object's strings (substituteFast).
type scalarSubst struct {
	vars map[string]string
	kept map[string]bool
	// size is more than the whole printed text could be, dollars the "$"
	// in it: the whole way's bound (substitutionBound) is checked on them.
	size, dollars int
	// printed holds each "$" string's printed line (printedAlone); collect:
	// the first pass, which only finds the variables to keep.
	printed map[string]string
	collect bool
}

// maxUnbroken is the last column yaml.v2 prints before it may break a
// line at a space (its best width, 80), less a margin.
const maxUnbroken = 76

// maxKeptFast is how many undefined variables the string-by-string way
// keeps before it leaves the object to the whole way, which refuses an
// object with too many (its 64 rounds).
const maxKeptFast = 32

// substituteFast substitutes vars into doc string by string, as the whole
// way would, and returns the new document with the undefined variables it
// kept as text; false when it cannot be sure, and the whole way must go.
func substituteFast(doc map[string]any, vars map[string]string) (map[string]any, map[string]bool, bool) {
	// The whole way's rounds end with every undefined variable kept, and
	// its one text substituted with all of them: ${X:-d} reads X as set
	// once a ${X} elsewhere has it kept. So a first pass finds them all,
	// and the second substitutes with the set it found.
	s := &scalarSubst{vars: vars, kept: map[string]bool{}, printed: map[string]string{}, collect: true}
	if _, ok := s.value(doc, 0, 0); !ok {
		return nil, nil, false
	}
	found := len(s.kept)
	s.collect, s.size, s.dollars = false, 0, 0
	out, ok := s.value(doc, 0, 0)
	if !ok || len(s.kept) != found {
		return nil, nil, false
	}
	longest := 0
	for _, v := range vars {
		longest = max(longest, len(v))
	}
	if s.size+s.dollars*longest > MaxBytes {
		return nil, nil, false // the whole way decides, and may refuse
	}
	m, ok := out.(map[string]any)
	return m, s.kept, ok
}

// value substitutes into v, at depth: a mapping's value whose key is
// keyLen long, or a sequence's item (keyLen -1).
func (s *scalarSubst) value(v any, keyLen, depth int) (any, bool) {
	if depth > maxPrintDepth {
		return nil, false
	}
	s.size += 2*depth + 16
	switch t := v.(type) {
	case nil, bool, int64:
		return t, true
	case string:
		// A block string repeats its indentation on every line.
		s.size += strings.Count(t, "\n") * (2*depth + 8)
		return s.scalar(t, keyLen < 0, 2*depth+max(keyLen, 0)+4)
	case map[string]any:
		if t == nil {
			return nil, true
		}
		m := make(map[string]any, len(t))
		for k, x := range t {
			if k == "<<" || strings.Contains(k, "$") || !plainASCII(k) || len(k) > maxShortKey {
				return nil, false
			}
			s.size += 2 * len(k)
			y, ok := s.value(x, len(k), depth+1)
			if !ok {
				return nil, false
			}
			m[k] = y
		}
		return m, true
	case []any:
		if t == nil {
			return nil, true
		}
		l := make([]any, len(t))
		for i, x := range t {
			y, ok := s.value(x, -1, depth+1)
			if !ok {
				return nil, false
			}
			l[i] = y
		}
		return l, true
	}
	return nil, false
}

// scalar substitutes into one string, printed from at most column col.
func (s *scalarSubst) scalar(str string, item bool, col int) (any, bool) {
	s.size += 2 * len(str)
	if !plainASCII(str) {
		return nil, false
	}
	if !strings.Contains(str, "$") {
		return str, true
	}
	s.dollars += strings.Count(str, "$")
	printed, ok := s.printed[str]
	if !ok {
		if printed, ok = printedAlone(str); !ok || nestedReference(printed) {
			return nil, false // several lines, or a reference whose evaluation may depend on what is kept
		}
		s.printed[str] = printed
	}
	if strings.Contains(printed, " ") && col+len(printed) > maxUnbroken {
		return nil, false // yaml.v2 may break it at a space where it stands
	}
	out, ok := s.eval(printed)
	if !ok || s.collect {
		return nil, ok
	}
	if out == printed {
		return str, true
	}
	return readAlone(out, item)
}

// nestedReference reports a "$" inside a ${...}: a default or alternative
// that refers to a variable is evaluated or not by whether the outer one
// is set, so which undefined variables the whole way keeps may depend on
// the order it meets them.
func nestedReference(text string) bool {
	for {
		i := strings.Index(text, "${")
		if i < 0 {
			return false
		}
		text = text[i+2:]
		end := strings.IndexByte(text, '}')
		if end < 0 {
			end = len(text)
		}
		if strings.IndexByte(text[:end], '$') >= 0 {
			return true
		}
		text = text[end:]
	}
}

// eval runs envsubst on text as substituteObject does, keeping undefined
// variables as text; false on any other error (the whole way reports it).
func (s *scalarSubst) eval(text string) (string, bool) {
	for range maxKeptFast {
		out, err := evalKeeping(text, s.vars, s.kept)
		name, unset := unsetVariable(err)
		if !unset {
			return out, err == nil
		}
		if len(s.kept) >= maxKeptFast {
			return "", false
		}
		s.kept[name] = true
	}
	return "", false
}

// printedAlone is str as yaml.v2 prints it as a value, when that is one line.
func printedAlone(str string) (string, bool) {
	if printsAsIs(str) {
		return str, true
	}
	data, err := yamlv2.Marshal(map[string]any{"k": str})
	if err != nil {
		return "", false
	}
	text, ok := strings.CutPrefix(string(data), "k: ")
	text, nl := strings.CutSuffix(text, "\n")
	return text, ok && nl && !strings.ContainsAny(text, "\n\r")
}

// readAlone reads back the substituted text of one string as readBack reads
// it in the whole text; false when it may read differently there.
func readAlone(text string, item bool) (any, bool) {
	trimmed := strings.TrimLeft(text, " \t")
	if strings.ContainsAny(text, "\n\r") || strings.HasPrefix(trimmed, "|") || strings.HasPrefix(trimmed, ">") {
		return nil, false
	}
	doc := "k: " + text
	if item {
		doc = "k:\n- " + text
	}
	if readsAsString(text) {
		return text, true
	}
	if v, ok := readSimple(text, doc, item); ok {
		return v, true
	}
	m, err := readBack(doc)
	if err != nil || len(m) != 1 {
		return nil, false
	}
	v, ok := m["k"]
	if !item || !ok {
		return v, ok
	}
	l, ok := v.([]any)
	if !ok || len(l) != 1 {
		return nil, false
	}
	return l[0], true
}

// printsAsIs reports, for a string holding "$" (which no YAML number,
// boolean, null or date does), that yaml.v2 prints it plain, as it is
// (safePlain). It may say no to a string yaml.v2 prints plain;
// printedAlone then asks yaml.v2.
func printsAsIs(s string) bool { return safePlain(s) }

// readsAsString reports that yaml.v2 reads text, a plain scalar, as the
// string it is: safePlain, and not one of the words YAML 1.1 reads as a
// boolean or a null (yaml.v2 resolves a plain scalar by its first
// character, and one that starts with a letter, "$", "/" or "_" is a
// string unless it is such a word).
func readsAsString(text string) bool {
	return safePlain(text) && !asIsDigit(text[0]) && !yaml11Words[text]
}

var yaml11Words = map[string]bool{}

func init() {
	for _, w := range strings.Fields("y Y yes Yes YES true True TRUE on On ON n N no No NO false False FALSE off Off OFF null Null NULL") {
		yaml11Words[w] = true
	}
}

// safePlain reports that s is a plain scalar that means nothing more in a
// block mapping's value or sequence's item, however deep: it starts with a
// letter, a digit, "$", "/" or "_", and holds only letters, digits and
// asIsInner, and ":" anywhere but last (no space at all, so no ": " and no
// place where yaml.v2 may break a long line; no "#", tab or line break).
func safePlain(s string) bool {
	if s == "" || !asIsFirst(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isAlnum(c) || strings.IndexByte(asIsInner, c) >= 0:
		case c == ':' && i+1 < len(s): // a ":" that ends a plain scalar makes it a key
		default:
			return false
		}
	}
	return true
}

// asIsInner are the characters besides letters and digits safePlain takes
// anywhere but first.
const asIsInner = "${}._/-=+~(),@"

func asIsDigit(c byte) bool { return '0' <= c && c <= '9' }

func asIsFirst(c byte) bool { return isAlnum(c) || c == '$' || c == '/' || c == '_' }

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// readSimple reads doc (text, as readAlone wrote it) with yaml.v2 alone,
// when what it holds is a string, a boolean, a null or an integer, which
// readBack's way through JSON leaves as they are (an int as int64); false
// for anything else (a float, a collection, a tag, an anchor), which
// readBack reads.
func readSimple(text, doc string, item bool) (any, bool) {
	if strings.ContainsAny(text, "!&*") {
		return nil, false
	}
	var m map[string]any
	if yamlv2.Unmarshal([]byte(doc), &m) != nil || len(m) != 1 {
		return nil, false
	}
	v, ok := m["k"]
	if item {
		l, isList := v.([]any)
		if !isList || len(l) != 1 {
			return nil, false
		}
		v = l[0]
	}
	switch t := v.(type) {
	case string:
		return t, ok && utf8.ValidString(t)
	case bool, nil:
		return t, ok
	case int:
		return int64(t), ok
	case int64:
		return t, ok
	}
	return nil, false
}
