package wiredoc

import (
	"bytes"
	"encoding/gob"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/capreport/capreport/internal/testutil"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// corpusMessages is the documents of every YAML file of ../shared/corpus
// and ../shared/corpus-gitops, decoded as render decodes them, one message
// per file (a source's reply holds a file's objects or a chart's): the
// trees wiredoc carries for the workers and the render cache.
func corpusMessages(b *testing.B) [][]map[string]any {
	b.Helper()
	var msgs [][]map[string]any
	for _, name := range []string{"corpus", "corpus-gitops"} {
		dir, ok := testutil.Shared(b, name)
		if !ok {
			b.Skipf("%s not present", dir)
		}
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			objs, _, err := yamldoc.Decode(data, 1<<20)
			if err != nil || len(objs) == 0 {
				return nil
			}
			var docs []map[string]any
			for _, o := range objs {
				docs = append(docs, o.Doc)
			}
			msgs = append(msgs, docs)
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return msgs
}

// gobMessage is a message as gob would carry it without wiredoc: the
// documents as interface trees, every concrete type registered.
type gobMessage struct{ Docs []map[string]any }

// registerGob names the types a decoded document holds inside interfaces:
// gob refuses to encode an interface value of a type it was not told of.
func registerGob() {
	gob.Register(map[string]any{})
	gob.Register([]any{})
}

// wiredocRoundTrip encodes and decodes each document of msg on its own,
// as a cache entry holds them, and returns what came back and its size.
func wiredocRoundTrip(msg []map[string]any) ([]map[string]any, int) {
	out := make([]map[string]any, 0, len(msg))
	size := 0
	for _, d := range msg {
		one, err := Append(nil, d)
		if err != nil {
			panic(err)
		}
		size += len(one)
		v, err := DecodeString(string(one))
		if err != nil {
			panic(err)
		}
		out = append(out, v.(map[string]any))
	}
	return out, size
}

// gobRoundTrip encodes and decodes msg with a fresh encoder and decoder,
// as one cache entry file would be (each carries its own type
// descriptions); stream reuses a pair across messages, as a worker's pipe
// would.
func gobRoundTrip(msg []map[string]any, enc *gob.Encoder, dec *gob.Decoder, buf *bytes.Buffer) ([]map[string]any, int) {
	if enc == nil {
		buf = new(bytes.Buffer)
		enc, dec = gob.NewEncoder(buf), gob.NewDecoder(buf)
	}
	if err := enc.Encode(gobMessage{Docs: msg}); err != nil {
		panic(err)
	}
	size := buf.Len()
	var got gobMessage
	if err := dec.Decode(&got); err != nil {
		panic(err)
	}
	return got.Docs, size
}

// BenchmarkRoundTripCorpus encodes and decodes the corpus's documents
// with wiredoc and with encoding/gob (fresh per message, as a cache entry;
// one stream, as a worker's pipe). changed/op counts the messages that do
// not come back as they went (gob turns an empty list into nil, which the
// JSON report prints as null where it printed []).
func BenchmarkRoundTripCorpus(b *testing.B) {
	msgs := corpusMessages(b)
	registerGob()
	codecs := []struct {
		name string
		rt   func(b *testing.B) func([]map[string]any) ([]map[string]any, int)
	}{
		{"wiredoc", func(*testing.B) func([]map[string]any) ([]map[string]any, int) { return wiredocRoundTrip }},
		{"gob-per-entry", func(*testing.B) func([]map[string]any) ([]map[string]any, int) {
			return func(m []map[string]any) ([]map[string]any, int) { return gobRoundTrip(m, nil, nil, nil) }
		}},
		{"gob-stream", func(*testing.B) func([]map[string]any) ([]map[string]any, int) {
			buf := new(bytes.Buffer)
			enc, dec := gob.NewEncoder(buf), gob.NewDecoder(buf)
			return func(m []map[string]any) ([]map[string]any, int) { return gobRoundTrip(m, enc, dec, buf) }
		}},
	}
	for _, c := range codecs {
		b.Run(c.name, func(b *testing.B) {
			rt := c.rt(b)
			var size, changed int
			for _, m := range msgs {
				got, n := rt(m)
				size += n
				if !reflect.DeepEqual(got, m) {
					changed++
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				for _, m := range msgs {
					rt(m)
				}
			}
			b.ReportMetric(float64(size), "wire-bytes/op")
			b.ReportMetric(float64(changed), "changed/op")
			b.ReportMetric(float64(len(msgs)), "messages/op")
		})
	}
}
