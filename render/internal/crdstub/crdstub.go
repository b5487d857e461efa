// Package crdstub cuts each CustomResourceDefinition of a manifest file down
// to its apiVersion, kind and metadata before krusty reads the file.
//
// On kubeflow/manifests nine tenths of the bytes krusty parses are CRDs, and
// krusty's reader costs far more than the parse: kyaml's DeAnchor copies
// every mapping twice at every level of nesting, so a deep OpenAPI schema
// costs its size times its depth (a third of the render CPU), and every
// transformer then walks it. The report never reads a CRD (analyze.MayNeed
// drops them), but their identities still count: they are listed, sorted,
// patched by name and deleted like any other object, so a stub keeps
// exactly what identifies one.
//
// A stub carries Marker as a top-level field so that the build can tell
// afterwards whether anything read or changed more of a CRD than its stub
// holds (Touched), and build again from the real file when it did.
package crdstub

import (
	"regexp"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Marker is the top-level field every stub carries; no real object has it.
const Marker = "capreport.io/crd-stub"

// Kind is the kind this package stubs.
const Kind = "CustomResourceDefinition"

// separator is kyaml's document separator (kio.splitDocuments): a line
// that starts with "---", consuming the newline before it and after it.
var separator = regexp.MustCompile(`\n---.*\n`)

// kept are the fields a stub keeps.
var kept = map[string]bool{"apiVersion": true, "kind": true, "metadata": true}

// Cut returns data with each CRD document replaced by its stub and the
// number it replaced. It splits documents exactly as kyaml's reader does
// and leaves alone any document it cannot be sure about: one that does not
// decode, whose top level is not a plain mapping of plain keys, or that
// holds an alias or a merge key anywhere (kyaml resolves those, and could
// fail on them), so that krusty reads and reports such a file as it is.
func Cut(data []byte) ([]byte, int) {
	if !strings.Contains(string(data), Kind) {
		return data, 0
	}
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	seps := separator.FindAllStringIndex(s, -1)
	for _, loc := range seps {
		// kyaml refuses the whole file over such a separator.
		if after := strings.TrimSpace(s[loc[0]+4 : loc[1]]); after != "" && after[0] != '#' {
			return data, 0
		}
	}
	var b strings.Builder
	n, prev := 0, 0
	for i := 0; i <= len(seps); i++ {
		end, last := len(s), i == len(seps)
		if !last {
			end = seps[i][0]
		}
		piece := s[prev:end]
		if !last {
			piece += "\n" // kyaml gives back the newline the separator took
		}
		if stub, ok := stubOf(piece); ok {
			if !last {
				stub = strings.TrimSuffix(stub, "\n")
			}
			b.WriteString(stub)
			n++
		} else {
			b.WriteString(s[prev:end])
		}
		if !last {
			b.WriteString(s[seps[i][0]:seps[i][1]])
			prev = seps[i][1]
		}
	}
	if n == 0 {
		return data, 0
	}
	return []byte(b.String()), n
}

// stubOf is the stub of one document if it is a CRD that can be stubbed.
func stubOf(piece string) (string, bool) {
	if !strings.Contains(piece, Kind) {
		return "", false
	}
	var doc yaml.Node
	if err := yaml.NewDecoder(strings.NewReader(piece)).Decode(&doc); err != nil {
		return "", false
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return "", false
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode || root.Tag != "!!map" || resolves(root) {
		return "", false
	}
	stub := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	seen := map[string]bool{}
	isCRD := false
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Tag != "!!str" || seen[k.Value] || k.Value == Marker {
			return "", false
		}
		seen[k.Value] = true
		if k.Value == "kind" {
			isCRD = v.Kind == yaml.ScalarNode && v.Tag == "!!str" && v.Value == Kind
		}
		if kept[k.Value] {
			stub.Content = append(stub.Content, k, v)
		}
	}
	if !isCRD {
		return "", false
	}
	stub.Content = append(stub.Content,
		&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: Marker},
		&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "true", Style: yaml.DoubleQuotedStyle})
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(stub); err != nil || enc.Close() != nil {
		return "", false
	}
	return b.String(), true
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
