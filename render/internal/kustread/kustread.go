// Package kustread rewrites a resource file as krusty is about to read it:
// each CustomResourceDefinition cut down to its apiVersion, kind and
// metadata, and each object annotated with the file it came from.
//
// Stubs: on kubeflow/manifests nine tenths of the bytes krusty parses are
// CRDs, and krusty's reader costs far more than the parse: kyaml's
// DeAnchor copies every mapping twice at every level of nesting, so a deep
// OpenAPI schema costs its size times its depth, and every transformer
// then walks it. The report never reads a CRD (analyze.MayNeed drops
// them), but their identities still count: they are listed, sorted,
// patched by name and deleted like any other object, so a stub keeps
// exactly what identifies one. A stub carries Marker as a top-level field
// so that the build can tell afterwards whether anything read or changed
// more of a CRD than its stub holds (Touched), and build again from the
// real file when it did.
//
// File annotations: krusty traces objects to their files only through
// buildMetadata, which also makes every transformer re-parse and re-write
// a growing list of transformations on every object (a fifth of
// kubeflow's render CPU after the stubs). FileAnnotation says the same as
// the origin's path at the cost of one parse and print of the file.
package kustread

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Marker is the top-level field every stub carries; no real object has it.
const Marker = "capreport.io/crd-stub"

// FileAnnotation is the annotation Rewrite.File adds to each object.
const FileAnnotation = "render.capreport.io/file"

// GeneratedPrefix begins the FileAnnotation of an object that a
// configMapGenerator or secretGenerator made: the rest is the path of the
// kustomization that configured it (set through the generator's options,
// kustscan.Tracing.Generators). One annotation for both, so that a
// generator that replaces an object replaces where it came from, as
// krusty's origin does.
const GeneratedPrefix = "configured in "

// Kind is the kind this package stubs.
const Kind = "CustomResourceDefinition"

// separator is kyaml's document separator (kio.splitDocuments): a line
// that starts with "---", consuming the newline before it and after it.
var separator = regexp.MustCompile(`\n---.*\n`)

// kept are the fields a stub keeps.
var kept = map[string]bool{"apiVersion": true, "kind": true, "metadata": true}

// Rewrite says what Apply does to a file.
type Rewrite struct {
	Stub bool   // cut each CRD to its stub
	File string // when set, annotate every object with FileAnnotation: File
}

// Result is what Apply did.
type Result struct {
	Stubbed int
	// Unsure: File was set and some document could not be annotated (it
	// does not decode, holds an alias or a merge key, is a List, has no
	// metadata mapping, ...); the caller must trace the build otherwise.
	Unsure bool
}

// Apply returns data rewritten as w says. It splits documents exactly as
// kyaml's reader does and leaves alone any document it cannot be sure
// about, so that krusty reads and reports such a file as it is; data
// comes back unchanged when nothing was rewritten.
func (w Rewrite) Apply(data []byte) ([]byte, Result) {
	var res Result
	if w.File == "" && (!w.Stub || !bytes.Contains(data, []byte(Kind))) {
		return data, res
	}
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	seps := separator.FindAllStringIndex(s, -1)
	for _, loc := range seps {
		// kyaml refuses the whole file over such a separator.
		if after := strings.TrimSpace(s[loc[0]+4 : loc[1]]); after != "" && after[0] != '#' {
			return data, Result{Unsure: w.File != ""}
		}
	}
	var b strings.Builder
	changed, prev := false, 0
	for i := 0; i <= len(seps); i++ {
		end, last := len(s), i == len(seps)
		if !last {
			end = seps[i][0]
		}
		piece := s[prev:end]
		if !last {
			piece += "\n" // kyaml gives back the newline the separator took
		}
		out, did := w.piece(piece, &res)
		if did {
			changed = true
			if !last {
				out = strings.TrimSuffix(out, "\n")
			}
			b.WriteString(out)
		} else {
			b.WriteString(s[prev:end])
		}
		if !last {
			b.WriteString(s[seps[i][0]:seps[i][1]])
			prev = seps[i][1]
		}
	}
	if !changed {
		return data, res
	}
	return []byte(b.String()), res
}

// piece rewrites one document; did says whether out replaces it.
func (w Rewrite) piece(piece string, res *Result) (out string, did bool) {
	if w.File == "" && !strings.Contains(piece, Kind) {
		return "", false
	}
	root, empty, ok := decode(piece)
	switch {
	case empty:
		return "", false
	case !ok:
		res.Unsure = res.Unsure || w.File != ""
		return "", false
	}
	stubbed := w.Stub && isCRD(root)
	if stubbed && resolves(root) {
		// A stub keeps three fields of the document; an alias among them
		// may name an anchor among the fields it drops.
		res.Unsure = res.Unsure || w.File != ""
		return "", false
	}
	if stubbed {
		root = stubOf(root)
	}
	if w.File != "" && !annotate(root, w.File) {
		res.Unsure = true
		return "", false
	}
	if !stubbed && w.File == "" {
		return "", false
	}
	out, ok = encode(root)
	switch {
	case !ok:
		res.Unsure = res.Unsure || w.File != ""
	case stubbed:
		res.Stubbed++
	}
	return out, ok
}

// decode reads the one document kyaml reads from a piece: its root
// mapping, or empty when kyaml skips the piece (no document, or a null
// one); ok is false when the piece does not decode or is not a mapping
// of distinct string keys (a merge key among them is one kyaml rewrites).
// Aliases and merge keys below the root are kept: yaml.v3 prints them
// back as they were, and kyaml's DeAnchor then expands the rewrite as it
// would the file (annotate keeps out of what they reach).
func decode(piece string) (root *yaml.Node, empty, ok bool) {
	var doc yaml.Node
	if err := yaml.NewDecoder(strings.NewReader(piece)).Decode(&doc); err != nil {
		return nil, errors.Is(err, io.EOF), false
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, false, false
	}
	root = doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil, true, false
	}
	if root.Kind != yaml.MappingNode || root.Tag != "!!map" || root.Anchor != "" || oddKeys(root) {
		return nil, false, false
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i]
		if k.Kind != yaml.ScalarNode || k.Tag != "!!str" || seen[k.Value] || k.Value == Marker {
			return nil, false, false
		}
		seen[k.Value] = true
	}
	return root, false, true
}

// field is the value of key in the mapping m, or nil.
func field(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func isCRD(root *yaml.Node) bool {
	k := field(root, "kind")
	return k != nil && k.Kind == yaml.ScalarNode && k.Tag == "!!str" && k.Value == Kind
}

// stubOf is the stub of a CRD's root mapping.
func stubOf(root *yaml.Node) *yaml.Node {
	stub := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if kept[root.Content[i].Value] {
			stub.Content = append(stub.Content, root.Content[i], root.Content[i+1])
		}
	}
	return appendString(stub, Marker, "true")
}

// annotate adds FileAnnotation to the object's metadata.annotations; false
// when the object is not one krusty reads as a single object with a
// metadata mapping (a List is split into its items), or already has it.
func annotate(root *yaml.Node, file string) bool {
	if k := field(root, "kind"); k == nil || k.Kind != yaml.ScalarNode || strings.HasSuffix(k.Value, "List") {
		return false
	}
	md := field(root, "metadata")
	if !plainMapping(md) {
		return false
	}
	ann := field(md, "annotations")
	switch {
	case ann != nil && ann.Anchor != "":
		return false // another place aliases it: the annotation would show there too
	case ann == nil:
		ann = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		appendString(md, "annotations", "")
		md.Content[len(md.Content)-1] = ann
	case ann.Kind == yaml.ScalarNode && ann.Tag == "!!null":
		// "annotations:" with nothing after it, as Helm charts print: the
		// mapping krusty's SetAnnotations would put in its place.
		*ann = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	case !plainMapping(ann) || field(ann, FileAnnotation) != nil:
		return false
	}
	appendString(ann, FileAnnotation, file)
	return true
}

// plainMapping reports whether n is a mapping that an annotation may be
// added to as it reads: no anchor (which an alias elsewhere would copy,
// annotation and all) and no merge key (whose merged annotations an
// explicit key would replace).
func plainMapping(n *yaml.Node) bool {
	if n == nil || n.Kind != yaml.MappingNode || n.Tag != "!!map" || n.Anchor != "" {
		return false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Tag == "!!merge" {
			return false
		}
	}
	return true
}

// appendString appends key: value (a double-quoted string) to mapping m.
func appendString(m *yaml.Node, key, value string) *yaml.Node {
	m.Content = append(m.Content,
		&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key},
		&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value, Style: yaml.DoubleQuotedStyle})
	return m
}

// encode prints a root mapping as one document, without its comments
// (which krusty's output does not keep, and which yaml.v3 can print where
// they change what a document says).
func encode(root *yaml.Node) (string, bool) {
	prepare(root)
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil || enc.Close() != nil {
		return "", false
	}
	return b.String(), true
}

// prepare drops n's comments, spells out its empty nulls (yaml.v3 prints
// an empty null in a flow mapping, {name}, as an empty quoted string) and
// leaves merge keys untagged.
func prepare(n *yaml.Node) {
	n.HeadComment, n.LineComment, n.FootComment = "", "", ""
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" && n.Value == "" {
		n.Value = "null"
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!merge" && n.Style == 0 {
		n.Tag = "" // printed plain, a << key reads as a merge key again; yaml.v3 would spell out !!merge
	}
	for _, c := range n.Content {
		prepare(c)
	}
}

// oddKeys reports whether a mapping below n has a key that carries an
// anchor: yaml.v3 does not print such a key back as kyaml read it ({&a}
// read as one null key came back as two). A key that is an alias, as in
// the controllers of bjw-s's app-template (`*app :`), prints back as it
// was read.
func oddKeys(n *yaml.Node) bool {
	if n.Kind == yaml.MappingNode {
		for i := 0; i < len(n.Content); i += 2 {
			if k := n.Content[i]; k.Anchor != "" {
				return true
			}
		}
	}
	for _, c := range n.Content {
		if oddKeys(c) {
			return true
		}
	}
	return false
}

// resolves reports whether n holds an alias or a merge key: what kyaml's
// DeAnchor rewrites, and can refuse.
func resolves(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode || n.Tag == "!!merge" {
		return true
	}
	for _, c := range n.Content {
		if resolves(c) {
			return true
		}
	}
	return false
}

// Touched reports whether a built object that carries Marker holds more,
// or other, than its stub did: something in the build wrote to the parts
// the stub left out (a patch, a replacement target) or changed its kind,
// so the build must read the real file. fields are the object's top-level
// field names.
func Touched(kind string, fields []string) bool {
	if kind != Kind {
		return true
	}
	for _, f := range fields {
		if !kept[f] && f != Marker {
			return true
		}
	}
	return false
}
