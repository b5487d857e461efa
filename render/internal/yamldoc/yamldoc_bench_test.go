package yamldoc

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/kyaml/kio"

	"github.com/capreport/capreport/internal/testutil"
)

// corpusStreams is every YAML file of ../shared/corpus and
// ../shared/corpus-gitops that yamldoc decodes (manifests, values,
// kustomizations, Flux and Argo CD objects: what render decodes; a
// chart's templates are not YAML until Helm runs them), with their total
// size. Issue 32 asks each hand-written decoder to be measured on what the
// pipeline reads, not on toy strings.
func corpusStreams(b *testing.B) ([][]byte, int64) {
	b.Helper()
	var streams [][]byte
	var total int64
	for _, name := range []string{"corpus", "corpus-gitops"} {
		dir, ok := testutil.Shared(b, name)
		if !ok {
			b.Skipf("%s not present", dir)
		}
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
				return err
			}
			if strings.Contains(filepath.ToSlash(p), "/templates/") {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if _, problems, err := Decode(data, 1<<20); err != nil || len(problems) > 0 {
				return nil // not YAML (a template outside templates/)
			}
			streams = append(streams, data)
			total += int64(len(data))
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return streams, total
}

// yamlV3Docs decodes a stream with yaml.v3 alone into Go values, as a
// caller without yamldoc would: no lines, no alias budget, duplicate keys
// refused. It returns the number of documents, or -1 when yaml.v3 refuses
// the stream.
func yamlV3Docs(data []byte) int {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	n := 0
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return n
		}
		if err != nil {
			return -1
		}
		n++
	}
}

// kyamlDocs decodes a stream as krusty reads one, with kyaml's reader,
// and converts each node to a map (RNode.Map), as a caller of kyaml would
// get Go values.
func kyamlDocs(data []byte) int {
	nodes, err := kio.FromBytes(data)
	if err != nil {
		return -1
	}
	for _, n := range nodes {
		if _, err := n.Map(); err != nil {
			return -1
		}
	}
	return len(nodes)
}

// BenchmarkDecodeCorpus decodes every YAML file of the corpora with
// yamldoc and with the libraries issue 32 names as its alternatives.
// yamldoc is yaml.v3's node parser plus a conversion that keeps each
// document's and annotation's line, the last of duplicate keys (as Helm
// and kustomize take it), int64 and an alias budget; the alternatives
// give none of the lines.
func BenchmarkDecodeCorpus(b *testing.B) {
	streams, total := corpusStreams(b)
	decoders := []struct {
		name   string
		decode func([]byte) int
	}{
		{"yamldoc", func(d []byte) int {
			objs, _, err := Decode(d, 1<<20)
			if err != nil {
				return -1
			}
			return len(objs)
		}},
		{"yaml.v3", yamlV3Docs},
		{"kyaml", kyamlDocs},
	}
	for _, dc := range decoders {
		b.Run(dc.name, func(b *testing.B) {
			b.SetBytes(total)
			b.ReportAllocs()
			refused := 0
			for b.Loop() {
				refused = 0
				for _, s := range streams {
					if dc.decode(s) < 0 {
						refused++
					}
				}
			}
			b.ReportMetric(float64(len(streams)), "files/op")
			// Files the decoder refuses that yamldoc (and Helm, and krusty)
			// read: duplicate keys, mostly.
			b.ReportMetric(float64(refused), "refused/op")
		})
	}
}
