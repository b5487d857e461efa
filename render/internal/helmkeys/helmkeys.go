// Package helmkeys rewrites a chart's key and certificate calls to make
// ed25519 keys instead of Sprig's RSA ones, before Helm's engine parses
// the templates, and names the templates it rewrote (the
// helm-keys-ed25519 finding). docs/architecture.md gives what it saves.
package helmkeys

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"
	"text/template/parse"

	"helm.sh/helm/v3/pkg/chart"

	"github.com/capreport/capreport/check"
)

// Sprig's key and certificate functions make RSA keys:
// genPrivateKey "rsa" a 4096-bit one (bitnami etcd's JWT key), genCA,
// genSelfSignedCert and genSignedCert a 2048-bit one each (the TLS
// Secrets of most bitnami charts, webhook certificates). Generating them
// was 61.5 % of the CPU of a render of the vendored bitnami/charts
// monorepo, and most of the time of every chart that has one. capreport
// never reads the key material: it ends in Secret data and webhook
// caBundles, which capreport does not look at, and Helm's own output of
// these functions is random on every run anyway. So before the engine
// parses a chart's templates, the calls are rewritten to make an ed25519
// key instead (microseconds, not a second):
//
//	genPrivateKey "rsa" (or "dsa", or "")  →  genPrivateKey "ed25519"
//	genCA CN DAYS                          →  genCAWithKey CN DAYS (genPrivateKey "ed25519")
//	genSelfSignedCert CN IPS ALT DAYS      →  genSelfSignedCertWithKey CN IPS ALT DAYS (genPrivateKey "ed25519")
//	genSignedCert CN IPS ALT DAYS CA       →  genSignedCertWithKey CN IPS ALT DAYS CA (genPrivateKey "ed25519")
//
// Sprig's WithKey forms read the PKCS#8 PEM genPrivateKey "ed25519"
// writes, sign with an ed25519 CA key, and a CA from any other key (a
// buildCustomCert from values) still signs the ed25519 leaf; the result
// is the same certificate object with a valid PEM certificate and key.
// What differs from Helm's output is only key and certificate bytes,
// which are random anyway; one visible effect: a template that writes a
// raw PEM (not base64) into its output writes a 3-line ed25519 key where
// an RSA key takes some 27 or 51 lines (and a shorter certificate), so the
// rendered-output lines of the objects after it in that template
// (Origin.Line) are smaller than Helm's would be.
//
// The rewrite must never change what a template means otherwise. It
// splices the source bytes at the positions of the parsed nodes (it never
// re-serialises the tree, which would drop comments and trim markers);
// it inserts no newline, so line numbers and Helm's error lines stay
// the same; it rewrites a call only when it is the first command of its
// pipeline (not fed a piped value), has exactly its arity, and the end
// of its last argument is found with certainty; a key type that is not
// a literal is left as it is; and a rewritten template that does not
// parse is dropped for the original. Strings given to tpl are not
// templates of the chart and keep their RSA keys. Beyond key bytes, a
// failing call reads differently: Helm's message names the WithKey form
// and the columns after it on its line move; and a "dsa" key given to a
// WithKey form, which x509 cannot sign with, fails in Helm and not here.

// keyCall is one function the rewrite knows: its arity and its WithKey
// form ("" for genPrivateKey, whose argument is rewritten instead).
type keyCall struct {
	arity   int
	withKey string
}

var keyCalls = map[string]keyCall{
	"genPrivateKey":     {arity: 1},
	"genCA":             {arity: 2, withKey: "genCAWithKey"},
	"genSelfSignedCert": {arity: 4, withKey: "genSelfSignedCertWithKey"},
	"genSignedCert":     {arity: 5, withKey: "genSignedCertWithKey"},
}

// slowKeyTypes are genPrivateKey's key types that are slow to make ("" is RSA).
var slowKeyTypes = map[string]bool{"rsa": true, "dsa": true, "": true}

// HelmsOwn turns the rewrite off, for the tests and benchmarks that
// compare renders with Helm's own keys against the rewritten ones.
var HelmsOwn = false

const (
	cheapKeyType = `"ed25519"`
	cheapKeyArg  = ` (genPrivateKey "ed25519")`
)

// Rewrite rewrites the templates of a loaded chart and of its
// dependencies in place (each rewritten template is a new chart.File in a
// new Templates slice; the loaded bytes are not written to) and returns
// the chart, and the templates it rewrote: by the engine's name for each
// (the chart's full path and the file's), the line of its first key call.
func Rewrite(c *chart.Chart) (*chart.Chart, map[string]int) {
	rewritten := map[string]int{}
	if !HelmsOwn {
		cheapKeysInto(c, rewritten)
	}
	return c, rewritten
}

func cheapKeysInto(c *chart.Chart, rewritten map[string]int) {
	var out []*chart.File
	for i, f := range c.Templates {
		if f == nil {
			continue
		}
		data, line, ok := rewriteKeys(f.Name, f.Data)
		if !ok {
			continue
		}
		if out == nil {
			out = slices.Clone(c.Templates)
		}
		nf := *f
		nf.Data = data
		out[i] = &nf
		rewritten[path.Join(c.ChartFullPath(), f.Name)] = line
	}
	if out != nil {
		c.Templates = out
	}
	for _, d := range c.Dependencies() {
		cheapKeysInto(d, rewritten)
	}
}

// mentionsKeyCall is the cheap test before a template is parsed.
func mentionsKeyCall(src []byte) bool {
	for name := range keyCalls {
		if bytes.Contains(src, []byte(name)) {
			return true
		}
	}
	return false
}

// cheapKeysTemplate is the rewritten text of one template; ok is false
// when there is nothing to rewrite (or the rewrite would not parse).
func cheapKeysTemplate(name string, src []byte) ([]byte, bool) {
	out, _, ok := rewriteKeys(name, src)
	return out, ok
}

// rewriteKeys is cheapKeysTemplate with the line of the first call it
// rewrote.
func rewriteKeys(name string, src []byte) ([]byte, int, bool) {
	if !mentionsKeyCall(src) {
		return nil, 0, false
	}
	text := string(src)
	trees, err := parseTemplate(name, text)
	if err != nil {
		return nil, 0, false // Helm reports the parse error itself
	}
	s := keyScan{src: text}
	for _, t := range trees {
		s.walk(t.Root)
	}
	out, ok := splice(src, s.edits) // sorts the edits by position
	if !ok {
		return nil, 0, false
	}
	if _, err := parseTemplate(name, string(out)); err != nil {
		return nil, 0, false
	}
	return out, 1 + bytes.Count(src[:s.edits[0].start], []byte("\n")), true
}

// Finding says which of a chart's rendered templates made keys as
// ed25519 (rewritten, from Rewrite; a template that rendered nothing
// made none), so that a reader comparing capreport's render with helm
// template's knows why the key bytes differ; nil when none did.
func Finding(chartRel string, rewritten map[string]int, files map[string]string, file func(name string) string) *check.Finding {
	var names []string
	for name := range rewritten {
		if strings.TrimSpace(files[name]) != "" {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	slices.Sort(names)
	where := make([]string, len(names))
	for i, name := range names {
		where[i] = fmt.Sprintf("%s:%d", file(name), rewritten[name])
	}
	verb := "make"
	if len(where) == 1 {
		verb = "makes"
	}
	return &check.Finding{Check: check.HelmKeysEd25519, Severity: check.SeverityInfo,
		Location: check.At(file(names[0]), rewritten[names[0]]),
		Message: fmt.Sprintf("chart %s: %s %s keys with Sprig's key functions; capreport makes them ed25519 where Helm makes RSA, "+
			"so the key and certificate bytes rendered differ from helm template's (which are random on every run anyway); "+
			"no autoscaler reads them, and RSA keys would make the render much slower (docs/architecture.md, helmkeys)",
			chartRel, strings.Join(where, ", "), verb)}
}

// parseTemplate parses a template as Helm's engine does (default
// delimiters), without knowing the functions.
func parseTemplate(name, text string) (map[string]*parse.Tree, error) {
	t := parse.New(name)
	t.Mode = parse.SkipFuncCheck
	trees := map[string]*parse.Tree{}
	if _, err := t.Parse(text, "", "", trees); err != nil {
		return nil, err
	}
	return trees, nil
}

// keyEdit replaces src[start:end] with text (an insertion when start == end).
type keyEdit struct {
	start, end int
	text       string
}

// splice applies edits to src; ok is false when there are none or two
// overlap (or share a start), which a valid rewrite never does.
func splice(src []byte, edits []keyEdit) ([]byte, bool) {
	if len(edits) == 0 {
		return nil, false
	}
	slices.SortFunc(edits, func(a, b keyEdit) int { return a.start - b.start })
	var out bytes.Buffer
	out.Grow(len(src) + len(edits)*len(cheapKeyArg))
	at := 0
	for i, e := range edits {
		if e.start < at || i > 0 && e.start == edits[i-1].start || e.end > len(src) {
			return nil, false
		}
		out.Write(src[at:e.start])
		out.WriteString(e.text)
		at = e.end
	}
	out.Write(src[at:])
	return out.Bytes(), true
}

// keyScan collects the edits of one template's trees.
type keyScan struct {
	src   string
	edits []keyEdit
}

// walk visits every pipeline under n.
func (s *keyScan) walk(n parse.Node) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n != nil {
			for _, c := range n.Nodes {
				s.walk(c)
			}
		}
	case *parse.ActionNode:
		s.pipe(n.Pipe)
	case *parse.IfNode:
		s.branch(&n.BranchNode)
	case *parse.RangeNode:
		s.branch(&n.BranchNode)
	case *parse.WithNode:
		s.branch(&n.BranchNode)
	case *parse.TemplateNode:
		s.pipe(n.Pipe)
	case *parse.PipeNode:
		s.pipe(n)
	case *parse.ChainNode:
		s.walk(n.Node)
	}
}

func (s *keyScan) branch(b *parse.BranchNode) {
	s.pipe(b.Pipe)
	s.walk(b.List)
	s.walk(b.ElseList)
}

// pipe rewrites a call that is the first command of p, and looks into
// the arguments of every command.
func (s *keyScan) pipe(p *parse.PipeNode) {
	if p == nil {
		return
	}
	for i, cmd := range p.Cmds {
		if i == 0 {
			s.call(cmd)
		}
		for _, a := range cmd.Args {
			s.walk(a)
		}
	}
}

// call adds the edits of one command when it is a full call of a key function.
func (s *keyScan) call(cmd *parse.CommandNode) {
	if len(cmd.Args) == 0 {
		return
	}
	id, ok := cmd.Args[0].(*parse.IdentifierNode)
	if !ok {
		return
	}
	kc, ok := keyCalls[id.Ident]
	if !ok || len(cmd.Args) != kc.arity+1 {
		return
	}
	if kc.withKey == "" {
		s.keyType(cmd.Args[1])
		return
	}
	start := int(id.Pos)
	if _, ok := s.at(start, id.Ident); !ok {
		return
	}
	end, ok := s.end(cmd.Args[len(cmd.Args)-1])
	if !ok {
		return
	}
	s.edits = append(s.edits,
		keyEdit{start: start, end: start + len(id.Ident), text: kc.withKey},
		keyEdit{start: end, end: end, text: cheapKeyArg})
}

// keyType rewrites genPrivateKey's argument when it is a slow key type, literally.
func (s *keyScan) keyType(arg parse.Node) {
	str, ok := arg.(*parse.StringNode)
	if !ok || !slowKeyTypes[str.Text] {
		return
	}
	start := int(str.Pos)
	if end, ok := s.at(start, str.Quoted); ok {
		s.edits = append(s.edits, keyEdit{start: start, end: end, text: cheapKeyType})
	}
}

// at is the end of text when the source holds it at start.
func (s *keyScan) at(start int, text string) (int, bool) {
	if start < 0 || start > len(s.src) || !strings.HasPrefix(s.src[start:], text) {
		return 0, false
	}
	return start + len(text), true
}

// end is the byte offset just after an argument, when it is certain.
func (s *keyScan) end(n parse.Node) (int, bool) {
	pos := int(n.Position())
	switch n := n.(type) {
	case *parse.PipeNode:
		return s.parenEnd(pos)
	case *parse.ChainNode:
		// Its position is that of its first field, after the term.
		return s.at(pos, "."+strings.Join(n.Field, "."))
	case *parse.FieldNode:
		return s.dotted(pos, n.String(), "."+n.Ident[0], len(n.Ident))
	case *parse.VariableNode:
		return s.dotted(pos, n.String(), n.Ident[0], len(n.Ident))
	case *parse.StringNode, *parse.NumberNode, *parse.BoolNode, *parse.NilNode,
		*parse.DotNode, *parse.IdentifierNode:
		return s.at(pos, n.String())
	}
	return 0, false
}

// dotted is the end of a field or variable (text, whose first component
// is first, of n components): the parser puts one of several components
// at its second component, the first's token being before it.
func (s *keyScan) dotted(pos int, text, first string, n int) (int, bool) {
	if end, ok := s.at(pos, text); ok {
		return end, true
	}
	if n < 2 {
		return 0, false
	}
	return s.at(pos-len(first), text)
}

// parenEnd is the offset after the ')' that closes the parenthesized
// pipeline whose first token is at pos (only spaces between it and the
// '('), skipping string, raw-string and character literals.
func (s *keyScan) parenEnd(pos int) (int, bool) {
	src := s.src
	if pos <= 0 || pos > len(src) {
		return 0, false
	}
	i := pos - 1
	for i >= 0 && strings.IndexByte(" \t\r\n", src[i]) >= 0 {
		i--
	}
	if i < 0 || src[i] != '(' {
		return 0, false
	}
	depth := 1
	for i = pos; i < len(src); i++ {
		switch c := src[i]; c {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return i + 1, true
			}
		case '"', '\'', '`':
			j, ok := literalEnd(src, i)
			if !ok {
				return 0, false
			}
			i = j - 1
		}
	}
	return 0, false
}

// literalEnd is the offset after the string, raw string or character
// literal that starts at src[i].
func literalEnd(src string, i int) (int, bool) {
	q := src[i]
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case q:
			return j + 1, true
		case '\\':
			if q != '`' {
				j++
			}
		}
	}
	return 0, false
}
