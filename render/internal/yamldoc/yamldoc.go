// Package yamldoc decodes the YAML streams render reads into JSON-like
// documents, with the line of each document and annotation, and bounds what
// aliases may expand to. It is apart from render so that what reads
// kustomizations with it can be fuzzed in a test binary without Helm and
// krusty.
package yamldoc

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Limits of the YAML decoder. Parsing into yaml.Node never expands
// aliases; the conversion to Go values does, and is charged against a
// budget of the document's own node count plus aliasAllowance, so an alias
// bomb is refused after a bounded amount of work and memory.
const (
	aliasAllowance = 100_000
	maxYAMLDepth   = 1000
)

// ErrAliasBudget marks a document refused because its aliases expand too far.
var ErrAliasBudget = errors.New("YAML aliases expand beyond the limit (alias bomb?)")

// segment is one YAML document of a stream, with the 1-based line of the
// stream on which its text starts.
type segment struct {
	text []byte
	line int
}

// splitDocuments cuts a YAML stream at document markers ("---" or "..." at
// column 0). A marker line is blanked, not dropped, so node lines inside a
// segment plus the segment's line give the line in the stream.
func splitDocuments(data []byte) []segment {
	var segs []segment
	start, startLine := 0, 1
	line := 1
	var cur []byte
	flush := func(end int) {
		cur = append(cur, data[start:end]...)
		segs = append(segs, segment{text: cur, line: startLine})
		cur = nil
	}
	for i := 0; i < len(data); {
		j := bytes.IndexByte(data[i:], '\n')
		next := len(data)
		if j >= 0 {
			next = i + j + 1
		}
		l := data[i:next]
		if isDocMarker(l) {
			flush(i)
			// The new segment starts at the marker line; the marker itself is
			// replaced by spaces so content after "--- " keeps its column.
			startLine = line
			cur = append(cur, bytes.Repeat([]byte{' '}, 3)...)
			start = i + 3
		}
		i = next
		line++
	}
	flush(len(data))
	return segs
}

func isDocMarker(l []byte) bool {
	if len(l) < 3 || !(bytes.HasPrefix(l, []byte("---")) || bytes.HasPrefix(l, []byte("..."))) {
		return false
	}
	if len(l) == 3 {
		return true
	}
	switch l[3] {
	case ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// Raw is one decoded Kubernetes-like document (or List item).
type Raw struct {
	Doc  map[string]any
	Line int // 1-based line in the stream
	// AnnLines is the 1-based line in the stream of each
	// metadata.annotations key; nil when there are none.
	AnnLines map[string]int
	// DupKeys are mapping keys the document defines twice ("key (lines a
	// and b)"), the later value taken as Helm's and kustomize's decoders
	// take it; kubectl's strict decoding refuses such a document.
	DupKeys []string
}

// Problem is a document that was skipped, with why.
type Problem struct {
	Line int
	Err  error
}

// Decode decodes every document of a YAML stream into objects. Empty
// documents are dropped; List kinds are expanded into their items. A
// document that fails to parse or convert is reported in problems and the
// rest of the stream still decodes. maxObjects bounds the result; when it
// is exceeded Decode stops and returns ErrTooManyObjects.
func Decode(data []byte, maxObjects int) (objs []Raw, problems []Problem, err error) {
	for _, seg := range splitDocuments(data) {
		root, perr := parseSegment(seg)
		if perr != nil {
			problems = append(problems, Problem{Line: seg.line, Err: perr})
			continue
		}
		if root == nil {
			continue
		}
		got, prob := segmentObjects(seg, root)
		if prob != nil {
			problems = append(problems, *prob)
			continue
		}
		objs = append(objs, got...)
		if len(objs) > maxObjects {
			return nil, problems, ErrTooManyObjects
		}
	}
	return objs, problems, nil
}

// parseSegment parses one document of a stream into its root node; the root is nil (and the error too)
// for a document with nothing in it: blank, only comments, or null.
func parseSegment(seg segment) (*yaml.Node, error) {
	if len(bytes.TrimSpace(seg.text)) == 0 {
		return nil, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(seg.text, &doc); err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return nil, nil
	}
	return root, nil
}

// segmentObjects converts the parsed document root of seg into its object, or a List's items; a document
// that does not convert, or is not a mapping, is a problem at the root's line.
func segmentObjects(seg segment, root *yaml.Node) ([]Raw, *Problem) {
	c := newConverter(root)
	c.base = seg.line - 1
	line := seg.line + root.Line - 1
	v, err := c.convert(root, 0)
	if err != nil {
		return nil, &Problem{Line: line, Err: err}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &Problem{Line: line, Err: fmt.Errorf("document is a %s, not a mapping", nodeKind(root))}
	}
	items, ok := listItems(m)
	if !ok {
		return []Raw{{Doc: m, Line: line, AnnLines: annotationLines(root, seg.line), DupKeys: c.dupKeys}}, nil
	}
	return listObjects(seg, root, items, c.dupKeys), nil
}

// listObjects turns the items of a List document into objects, each with the line of its own node (the
// List's, when the nodes and the converted items do not line up); items that are not mappings are dropped.
func listObjects(seg segment, root *yaml.Node, items []any, dupKeys []string) []Raw {
	var objs []Raw
	itemNodes := listItemNodes(root)
	for i, it := range items {
		im, ok := it.(map[string]any)
		if !ok {
			continue
		}
		l := seg.line + root.Line - 1
		var al map[string]int
		if i < len(itemNodes) {
			l = seg.line + itemNodes[i].Line - 1
			al = annotationLines(itemNodes[i], seg.line)
		}
		objs = append(objs, Raw{Doc: im, Line: l, AnnLines: al, DupKeys: dupKeys})
	}
	return objs
}

// ErrTooManyObjects is Decode's error when a stream holds more than maxObjects.
var ErrTooManyObjects = errors.New("too many objects")

// listItems reports whether m is a List kind (kind "List" or "*List") with
// an items array.
func listItems(m map[string]any) ([]any, bool) {
	kind, _ := m["kind"].(string)
	if !strings.HasSuffix(kind, "List") {
		return nil, false
	}
	items, ok := m["items"].([]any)
	return items, ok
}

func listItemNodes(root *yaml.Node) []*yaml.Node {
	if root.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "items" && root.Content[i+1].Kind == yaml.SequenceNode {
			return root.Content[i+1].Content
		}
	}
	return nil
}

// annotationLines returns the line in the stream of each key of the
// document's metadata.annotations mapping (segLine is the stream line of
// the segment the node tree was parsed from). Keys reached through merge
// keys ("<<") count when no direct key shadows them, as in the converted
// value; the last of duplicate keys wins, as in the converted value. Nil
// when the document has no annotations mapping.
func annotationLines(doc *yaml.Node, segLine int) map[string]int {
	md := mappingValue(doc, "metadata", 0)
	ann := mappingValue(md, "annotations", 0)
	if ann == nil {
		return nil
	}
	out := map[string]int{}
	addMappingKeyLines(out, ann, segLine, 0)
	if len(out) == 0 {
		return nil
	}
	return out
}

// resolveAlias follows alias nodes (bounded, so a cycle cannot loop).
func resolveAlias(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < maxYAMLDepth; i++ {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.AliasNode {
		return nil
	}
	return n
}

// mappingValue returns the mapping under key in mapping n, looking through
// aliases and merge keys; nil if there is none.
func mappingValue(n *yaml.Node, key string, depth int) *yaml.Node {
	n = resolveAlias(n)
	if n == nil || n.Kind != yaml.MappingNode || depth > maxYAMLDepth {
		return nil
	}
	var found *yaml.Node
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := resolveAlias(n.Content[i])
		if k == nil || k.Kind != yaml.ScalarNode {
			continue
		}
		if k.ShortTag() == "!!merge" {
			merges = append(merges, n.Content[i+1])
			continue
		}
		if k.Value == key {
			found = n.Content[i+1] // the last duplicate wins, as in convert
		}
	}
	if found != nil {
		if v := resolveAlias(found); v != nil && v.Kind == yaml.MappingNode {
			return v
		}
		return nil
	}
	for _, m := range merges {
		m = resolveAlias(m)
		if m == nil {
			continue
		}
		list := []*yaml.Node{m}
		if m.Kind == yaml.SequenceNode {
			list = m.Content
		}
		for _, e := range list {
			if v := mappingValue(e, key, depth+1); v != nil {
				return v
			}
		}
	}
	return nil
}

// addMappingKeyLines records the line of each scalar key of mapping n not
// already in out; direct keys shadow merged ones.
func addMappingKeyLines(out map[string]int, n *yaml.Node, segLine, depth int) {
	n = resolveAlias(n)
	if n == nil || n.Kind != yaml.MappingNode || depth > maxYAMLDepth {
		return
	}
	direct := map[string]int{}
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		rk := resolveAlias(k)
		if rk == nil || rk.Kind != yaml.ScalarNode {
			continue
		}
		if rk.ShortTag() == "!!merge" {
			merges = append(merges, n.Content[i+1])
			continue
		}
		direct[rk.Value] = segLine + k.Line - 1
	}
	for k, l := range direct {
		if _, ok := out[k]; !ok {
			out[k] = l
		}
	}
	for _, m := range merges {
		m = resolveAlias(m)
		if m == nil {
			continue
		}
		if m.Kind == yaml.SequenceNode {
			for _, e := range m.Content {
				addMappingKeyLines(out, e, segLine, depth+1)
			}
			continue
		}
		addMappingKeyLines(out, m, segLine, depth+1)
	}
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "sequence"
	case yaml.ScalarNode:
		return "scalar"
	case yaml.AliasNode:
		return "alias"
	}
	return "mapping"
}

// converter turns a yaml.Node tree into JSON-compatible Go values, charging
// every node it produces (aliases included) against a budget.
type converter struct {
	budget  int
	dupKeys []string
	base    int // lines before the document's segment
}

func newConverter(root *yaml.Node) *converter {
	return &converter{budget: countNodes(root, 0) + aliasAllowance}
}

// countNodes counts the nodes of the parsed tree without following aliases.
func countNodes(n *yaml.Node, depth int) int {
	if n == nil || depth > maxYAMLDepth {
		return 1
	}
	c := 1
	for _, ch := range n.Content {
		c += countNodes(ch, depth+1)
	}
	return c
}

func (c *converter) convert(n *yaml.Node, depth int) (any, error) {
	if depth > maxYAMLDepth {
		return nil, fmt.Errorf("line %d: YAML nested deeper than %d", n.Line, maxYAMLDepth)
	}
	c.budget--
	if c.budget < 0 {
		return nil, ErrAliasBudget
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.convert(n.Content[0], depth+1)
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, fmt.Errorf("line %d: unknown alias", n.Line)
		}
		return c.convert(n.Alias, depth+1)
	case yaml.SequenceNode:
		return c.convertSequence(n, depth)
	case yaml.MappingNode:
		return c.convertMapping(n, depth)
	case yaml.ScalarNode:
		return scalarValue(n)
	}
	return nil, fmt.Errorf("line %d: unsupported YAML node", n.Line)
}

// convertSequence converts the items of sequence n, which is at depth. Like convert it returns any, so
// that a failure is an untyped nil beside its error.
func (c *converter) convertSequence(n *yaml.Node, depth int) (any, error) {
	out := make([]any, 0, len(n.Content))
	for _, ch := range n.Content {
		v, err := c.convert(ch, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// convertMapping converts mapping n, which is at depth: its own keys first (the last of duplicates wins,
// and each duplicate is recorded in dupKeys, at most 20), then its merge keys ("<<"), which add only keys
// it does not have. It returns any, as convertSequence does.
func (c *converter) convertMapping(n *yaml.Node, depth int) (any, error) {
	out := make(map[string]any, len(n.Content)/2)
	var merges []*yaml.Node
	seen := make(map[string]int, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, vn := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merges = append(merges, vn)
			continue
		}
		key, err := keyString(k)
		if err != nil {
			return nil, err
		}
		if first, dup := seen[key]; dup && len(c.dupKeys) < 20 {
			c.dupKeys = append(c.dupKeys, fmt.Sprintf("%q (lines %d and %d)", key, first, c.base+k.Line))
		}
		seen[key] = c.base + k.Line
		v, err := c.convert(vn, depth+1)
		if err != nil {
			return nil, err
		}
		out[key] = v
	}
	for _, m := range merges {
		if err := c.merge(out, m, depth+1); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// merge applies a "<<" merge key: keys already present win.
func (c *converter) merge(out map[string]any, n *yaml.Node, depth int) error {
	if n.Kind == yaml.SequenceNode {
		for _, ch := range n.Content {
			if err := c.merge(out, ch, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	v, err := c.convert(n, depth+1)
	if err != nil {
		return err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("line %d: merge key needs a mapping", n.Line)
	}
	for k, val := range m {
		if _, exists := out[k]; !exists {
			out[k] = val
		}
	}
	return nil
}

func keyString(k *yaml.Node) (string, error) {
	for k.Kind == yaml.AliasNode && k.Alias != nil {
		k = k.Alias
	}
	if k.Kind != yaml.ScalarNode {
		return "", fmt.Errorf("line %d: complex mapping keys are not supported", k.Line)
	}
	return k.Value, nil
}

func scalarValue(n *yaml.Node) (any, error) {
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return n.Value, nil
		}
		return b, nil
	case "!!int":
		var i int64
		if err := n.Decode(&i); err == nil {
			return i, nil
		}
		var u uint64
		if err := n.Decode(&u); err == nil {
			return float64(u), nil
		}
		if f, err := strconv.ParseFloat(n.Value, 64); err == nil {
			return f, nil
		}
		return n.Value, nil
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			return n.Value, nil
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return n.Value, nil
		}
		return f, nil
	}
	// !!str, !!timestamp, !!binary and custom tags keep their text.
	return n.Value, nil
}

// CheckAliases parses a YAML stream and refuses it if any document's
// aliases expand beyond the budget. It is used on files handed to krusty,
// whose own decoder would expand them. Parse errors are left to the caller.
func CheckAliases(data []byte) error {
	if !bytes.ContainsRune(data, '*') || !bytes.ContainsRune(data, '&') {
		return nil
	}
	for _, seg := range splitDocuments(data) {
		var doc yaml.Node
		if yaml.Unmarshal(seg.text, &doc) != nil || len(doc.Content) == 0 {
			continue
		}
		c := &converter{budget: countNodes(&doc, 0) + aliasAllowance}
		if !c.countExpanded(&doc, 0) {
			return ErrAliasBudget
		}
	}
	return nil
}

// countExpanded walks the tree following aliases, without building values,
// and reports whether it stayed within the budget.
func (c *converter) countExpanded(n *yaml.Node, depth int) bool {
	c.budget--
	if c.budget < 0 || depth > maxYAMLDepth {
		return false
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return c.countExpanded(n.Alias, depth+1)
	}
	for _, ch := range n.Content {
		if !c.countExpanded(ch, depth+1) {
			return false
		}
	}
	return true
}

// Str reads a string at a path of nested maps ("" when it is not one).
func Str(m map[string]any, keys ...string) string {
	v, _ := Dig(m, keys...).(string)
	return v
}

// Dig walks nested maps; nil when the path leaves them.
func Dig(m map[string]any, keys ...string) any {
	var cur any = m
	for _, k := range keys {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[k]
	}
	return cur
}

// MapAt reads a mapping at a path of nested maps (nil when it is not one).
func MapAt(m map[string]any, keys ...string) map[string]any {
	v, _ := Dig(m, keys...).(map[string]any)
	return v
}

// StrList is the strings of a field that holds a string or a list (other
// items left out).
func StrList(v any) []string {
	var out []string
	switch t := v.(type) {
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
	case string:
		out = append(out, t)
	}
	return out
}

// MapList is the mappings of a field that holds a list (other items left
// out).
func MapList(v any) []map[string]any {
	var out []map[string]any
	if l, ok := v.([]any); ok {
		for _, e := range l {
			if m, ok := e.(map[string]any); ok {
				out = append(out, m)
			}
		}
	}
	return out
}

// DecodeNode converts one parsed document (a mapping node, such as a
// krusty resource's) into its object, or a List's items, as Decode would
// convert the same document read from text. Lines are the node tree's own.
func DecodeNode(root *yaml.Node) ([]Raw, error) {
	if root == nil {
		return nil, nil
	}
	objs, prob := segmentObjects(segment{line: 1}, root)
	if prob != nil {
		return nil, prob.Err
	}
	return objs, nil
}

// HasText reports whether sub appears in any key or string of a decoded
// document: the only places its printed YAML can hold text that numbers
// and booleans never hold ("$" of a substitution, "{{" of a template).
func HasText(v any, sub string) bool {
	switch t := v.(type) {
	case string:
		return strings.Contains(t, sub)
	case map[string]any:
		for k, x := range t {
			if strings.Contains(k, sub) || HasText(x, sub) {
				return true
			}
		}
	case []any:
		for _, x := range t {
			if HasText(x, sub) {
				return true
			}
		}
	}
	return false
}
