package config

import (
	"testing"

	"github.com/capreport/capreport/render"
)

func TestFetchKey(t *testing.T) {
	for _, c := range []struct {
		yaml string
		want bool
	}{{"fetch: true\n", true}, {"fetch: false\n", false}, {"failOn: error\n", false}} {
		cfg, err := Parse(".capreport.yaml", []byte(c.yaml))
		if err != nil {
			t.Fatalf("%q: %v", c.yaml, err)
		}
		if got := cfg.RenderOptions(render.Options{}).Fetch.Enabled; got != c.want {
			t.Errorf("%q: fetch %v, want %v", c.yaml, got, c.want)
		}
	}
	if _, err := Parse(".capreport.yaml", []byte("fetch: maybe\n")); err == nil {
		t.Error("fetch: maybe was accepted")
	}
}
