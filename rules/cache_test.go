package rules

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/capreport/capreport/analyze"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/internal/testutil"
	"github.com/capreport/capreport/render"
)

// Bills read from the cache make the very report pricing makes, byte for
// byte, over the real autoscalers of ../shared/corpus; a change to what
// a bill rests on (a check excluded, --strict) prices afresh.
func TestBillCacheSameReport(t *testing.T) {
	testutil.SkipIfShort(t)
	corpus := testutil.Corpus(t)
	ents, err := os.ReadDir(corpus)
	if err != nil {
		t.Fatal(err)
	}
	cacheDir := t.TempDir()
	entries := 0
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(corpus, e.Name())
		cfg := config.Default()
		res, err := render.Render(context.Background(), dir, cfg.RenderOptions(render.DefaultOptions()))
		if err != nil {
			t.Fatal(err)
		}
		inv := analyze.Extract(res.Objects, cfg)
		build := func(opts Options) []byte {
			r, err := Build(context.Background(), dir, res, inv, cfg, opts)
			if err != nil {
				t.Fatal(err)
			}
			data, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			return data
		}
		fresh := build(Options{})
		cold, warm := build(Options{CacheDir: cacheDir}), build(Options{CacheDir: cacheDir})
		if string(cold) != string(fresh) || string(warm) != string(fresh) {
			t.Errorf("%s: a report from the bill cache differs from a fresh one", e.Name())
		}
		entries += len(inv.Autoscalers)
		if got := testutil.CountFiles(t, cacheDir); got != entries {
			t.Errorf("%s: %d entries after a warm run, want one per autoscaler (%d)", e.Name(), got, entries)
		}
		if len(inv.Autoscalers) > 0 {
			if strict := build(Options{CacheDir: cacheDir, FailOnDefaults: true}); string(strict) != string(build(Options{FailOnDefaults: true})) {
				t.Errorf("%s: --strict from the cache differs from a fresh --strict", e.Name())
			}
			entries += len(inv.Autoscalers)
			if got := testutil.CountFiles(t, cacheDir); got != entries {
				t.Errorf("%s: --strict found %d entries, want %d: it must not share the default's", e.Name(), got, entries)
			}
		}
	}
}
