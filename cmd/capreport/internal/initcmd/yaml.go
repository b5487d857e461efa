package initcmd

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"

	"github.com/capreport/capreport/config"
)

// The names init writes (autoscalers, namespaces, files, charts) come
// from the repository, which may be a pull request's: each goes through
// the YAML encoder, on one line, so that none is read back as anything
// but that string (a name "null", "- item" or one holding a newline and a
// workloads entry). calibrate's edits go through the encoder whole
// (calibrate/yamlfile.go).

// yamlBreaks are the characters a YAML parser ends a line at.
const yamlBreaks = "\n\r\u0085\u2028\u2029"

// errNotUTF8 is text YAML cannot hold at all.
var errNotUTF8 = errors.New("not valid UTF-8, which YAML cannot hold")

// yamlScalar is s as one YAML string scalar on one line, as the encoder
// writes it: plain where that reads back as s, quoted where YAML would
// read it as something else, double-quoted with escapes where it holds a
// line break or a character YAML does not print.
func yamlScalar(s string) (string, error) {
	return yamlOneLine(&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s})
}

// yamlOneLine encodes n on one line. Where the encoder's own choice of
// style spans lines (a literal block for a newline, a single-quoted
// scalar folding at U+2028), every scalar of n is double-quoted instead,
// whose escapes keep it to one line.
func yamlOneLine(n *yaml.Node) (string, error) {
	if err := checkUTF8(n); err != nil {
		return "", err
	}
	out, err := marshalNode(n)
	if err != nil || !strings.ContainsAny(out, yamlBreaks) {
		return out, err
	}
	doubleQuote(n)
	out, err = marshalNode(n)
	if err == nil && strings.ContainsAny(out, yamlBreaks) {
		err = fmt.Errorf("the YAML encoder wrote %q on more than one line", out)
	}
	return out, err
}

func marshalNode(n *yaml.Node) (string, error) {
	b, err := yaml.Marshal(n)
	return strings.TrimSuffix(string(b), "\n"), err
}

func checkUTF8(n *yaml.Node) error {
	if !utf8.ValidString(n.Value) {
		return fmt.Errorf("%q is %w", n.Value, errNotUTF8)
	}
	for _, c := range n.Content {
		if err := checkUTF8(c); err != nil {
			return err
		}
	}
	return nil
}

func doubleQuote(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode {
		n.Style = yaml.DoubleQuotedStyle
	}
	for _, c := range n.Content {
		doubleQuote(c)
	}
}

// yamlComment is s as the text of a one-line comment: as it is when YAML
// takes every character of it in a comment, else double-quoted by the
// encoder (its escapes hold line breaks and unprintable characters), and
// text that is not UTF-8 quoted by Go.
func yamlComment(s string) string {
	if commentSafe(s) {
		return s
	}
	if q, err := marshalNode(&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: yaml.DoubleQuotedStyle}); err == nil && !strings.ContainsAny(q, yamlBreaks) {
		return q
	}
	return strconv.QuoteToASCII(s)
}

// commentSafe reports whether a YAML parser reads every character of s in
// a comment and ends the comment after it: printable, no line break, no
// byte-order mark.
func commentSafe(s string) bool {
	for _, r := range s {
		switch {
		case r == '\t' || r >= 0x20 && r < 0x7f:
		case r == utf8.RuneError || r == 0xfeff || r == 0x2028 || r == 0x2029:
			return false
		case r >= 0xa0 && r <= 0xd7ff || r >= 0xe000 && r <= 0xfffd || r >= 0x10000:
		default:
			return false
		}
	}
	return true
}

// checkRoundTrip parses body, the file init wrote, and
// requires it to be want: the same settings, sources and workloads
// entries, and nothing else (no extra key a name could have smuggled in).
// Lines are not compared.
func checkRoundTrip(body []byte, want *config.Config) error {
	got, err := config.Parse(want.File, body)
	if err != nil {
		return err
	}
	if g, w := withoutLines(got), withoutLines(want); !reflect.DeepEqual(g, w) {
		return fmt.Errorf("it reads back as %+v, not %+v", g, w)
	}
	return nil
}

// withoutLines is a copy of c with the lines it was read at cleared.
func withoutLines(c *config.Config) config.Config {
	out := *c
	out.Workloads = append([]config.Workload(nil), c.Workloads...)
	for i := range out.Workloads {
		out.Workloads[i].Line = 0
	}
	out.Sources = append([]config.Source(nil), c.Sources...)
	for i := range out.Sources {
		out.Sources[i].Line = 0
		out.Sources[i].ValueSets = append([]config.ValueSet(nil), c.Sources[i].ValueSets...)
		for j := range out.Sources[i].ValueSets {
			out.Sources[i].ValueSets[j].Line = 0
		}
	}
	return out
}
