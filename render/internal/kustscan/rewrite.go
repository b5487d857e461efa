package kustscan

import (
	"fmt"
	"maps"
	"path/filepath"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/capreport/capreport/render/internal/kustread"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// Inflate renders one helmCharts entry (hc) of the kustomization k in dir,
// whose document is doc, into a YAML stream; render does it with the Helm
// SDK, which this package does not link.
type Inflate func(dir string, k *Kustomization, doc, hc map[string]any) ([]byte, error)

// Tracing is how the build's objects are traced to their files.
type Tracing struct {
	// Krusty asks krusty for its origin annotations in every kustomization.
	Krusty bool
	// Generators has every configMapGenerator and secretGenerator entry
	// that does not merge into an earlier object give the objects it makes
	// kustread's file annotation, naming the kustomization (the hash
	// suffix is of the data alone). A merge keeps the earlier object's, as
	// krusty keeps its origin.
	Generators bool
}

// Rewrite returns the in-memory copy of every kustomization the build
// reads, by absolute path: traced as tr says, helmCharts replaced by the
// files inflate makes, dropped entries left out.
func (sc *Scan) Rewrite(inflate Inflate, tr Tracing) (map[string][]byte, error) {
	overlay := map[string][]byte{}
	for kdir, k := range sc.kusts {
		doc := make(map[string]any, len(k.Doc))
		for key, v := range k.Doc {
			doc[key] = v
		}
		if bm := yamldoc.StrList(doc["buildMetadata"]); tr.Krusty && !containsString(bm, "originAnnotations") {
			doc["buildMetadata"] = toAnyList(append(bm, "originAnnotations"))
		}
		dropEntries(doc, sc.dropped[kdir])
		realDir, err := sc.r.EvalSymlinks(kdir)
		if err != nil {
			return nil, err
		}
		if tr.Generators {
			annotateGenerators(doc, kustread.FileAnnotation, kustread.GeneratedPrefix+filepath.Join(realDir, filepath.Base(k.File)))
		}
		if charts := yamldoc.MapList(doc["helmCharts"]); len(charts) > 0 {
			res := toAnyList(yamldoc.StrList(doc["resources"]))
			for i, hc := range charts {
				data, err := inflate(kdir, k, doc, hc)
				if err != nil {
					return nil, err
				}
				name := fmt.Sprintf("capreport-helmchart-%d.yaml", i)
				overlay[filepath.Join(realDir, name)] = data
				res = append(res, name)
			}
			doc["resources"] = res
			delete(doc, "helmCharts")
			delete(doc, "helmGlobals")
		}
		data, err := sigsyaml.Marshal(doc)
		if err != nil {
			return nil, err
		}
		overlay[filepath.Join(realDir, filepath.Base(k.File))] = data
	}
	return overlay, nil
}

// annotateGenerators gives every generator entry of doc that does not
// merge the annotation key: value in its options, on copies of the
// entries.
func annotateGenerators(doc map[string]any, key, value string) {
	for _, field := range []string{"configMapGenerator", "secretGenerator"} {
		entries, _ := doc[field].([]any)
		out := make([]any, len(entries))
		for i, e := range entries {
			m, ok := e.(map[string]any)
			if b, _ := m["behavior"].(string); !ok || b == "merge" {
				out[i] = e
				continue
			}
			gen := maps.Clone(m)
			opts, _ := m["options"].(map[string]any)
			opts = maps.Clone(opts)
			if opts == nil {
				opts = map[string]any{}
			}
			ann, _ := opts["annotations"].(map[string]any)
			ann = maps.Clone(ann)
			if ann == nil {
				ann = map[string]any{}
			}
			ann[key] = value
			opts["annotations"], gen["options"] = ann, opts
			out[i] = gen
		}
		if entries != nil {
			doc[field] = out
		}
	}
}

// dropEntries removes dropped entries from their list fields; a
// helmCharts entry is dropped by name.
func dropEntries(doc map[string]any, dropped []droppedEntry) {
	for _, d := range dropped {
		l, _ := doc[d.field].([]any)
		kept := make([]any, 0, len(l))
		for _, e := range l {
			if s, ok := e.(string); ok && s == d.entry {
				continue
			}
			if m, ok := e.(map[string]any); ok && d.field == "helmCharts" && m["name"] == d.entry {
				continue
			}
			kept = append(kept, e)
		}
		doc[d.field] = kept
	}
}

// CoveredPaths lists, root-relative, what the build reads as its parts.
func (sc *Scan) CoveredPaths() []string {
	var out []string
	for _, d := range sc.Dirs {
		out = append(out, sc.r.Rel(d))
	}
	for _, f := range sc.Files {
		out = append(out, sc.r.Rel(f))
	}
	for _, c := range sc.Charts {
		out = append(out, sc.r.Rel(c))
	}
	return out
}

func containsString(l []string, s string) bool {
	for _, e := range l {
		if e == s {
			return true
		}
	}
	return false
}

func toAnyList(l []string) []any {
	out := make([]any, len(l))
	for i, s := range l {
		out[i] = s
	}
	return out
}
