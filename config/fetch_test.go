package config

import (
	"testing"

	"github.com/capreport/capreport/render"
)

// TestFetchKey: fetch: still parses (files that have it load, and the
// run warns that it is ignored), but never turns fetching on: only the
// person running capreport does (--fetch).
func TestFetchKey(t *testing.T) {
	for _, c := range []struct {
		yaml string
		set  bool
	}{{"fetch: true\n", true}, {"fetch: false\n", true}, {"failOn: error\n", false}} {
		cfg, err := Parse(".capreport.yaml", []byte(c.yaml))
		if err != nil {
			t.Fatalf("%q: %v", c.yaml, err)
		}
		if cfg.Fetch.Set != c.set {
			t.Errorf("%q: fetch set %v, want %v", c.yaml, cfg.Fetch.Set, c.set)
		}
		if cfg.RenderOptions(render.Options{}).Fetch.Enabled {
			t.Errorf("%q turned fetching on", c.yaml)
		}
	}
	if _, err := Parse(".capreport.yaml", []byte("fetch: maybe\n")); err == nil {
		t.Error("fetch: maybe was accepted")
	}
}
