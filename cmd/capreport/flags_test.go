package main

import (
	"testing"
	"time"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdtest"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
)

func TestRootFlags(t *testing.T) {
	cmdtest.Flags(t, newRootCmd, func(t *testing.T, f *cmdutil.Factory, o *rootOptions) {
		cmdtest.SameStreams(t, f, o.ios)
		if o.ctx == nil || o.git == nil {
			t.Error("context or git runner missing")
		}
		if o.render.Stdin != f.IOStreams.In {
			t.Error("stdin is not the factory's")
		}
		cmdtest.ClearRender(t, &o.render)
		cmdtest.SameVersion(t, f, o.version)
		o.ios, o.ctx, o.git, o.version = nil, nil, nil, ""
	}, []cmdtest.FlagCase[rootOptions]{
		{Name: "defaults", Want: rootOptions{paths: []string{"."}, render: cmdtest.DefaultRender, format: "text"}},
		{Name: "cache", Args: []string{"--cache", "--cache-dir", "/c"}, Want: rootOptions{paths: []string{"."}, format: "text",
			render: cmdtest.WithRender(func(r *cmdutil.RenderFlags) { r.Cache, r.CacheDir = true, "/c" })}},
		{Name: "flags", Args: []string{"a", "b", "-o", "json", "--out", "rep", "--fail-on", "warning", "--pretty",
			"-f", "v.yaml", "--set", "x=1", "-n", "shop", "--strict", "--include", "A,B", "--render-timeout", "5s"},
			Want: rootOptions{paths: []string{"a", "b"}, format: "json", out: "rep", failOn: "warning", pretty: true,
				render: cmdtest.WithRender(func(r *cmdutil.RenderFlags) {
					r.Values, r.Set, r.Namespace, r.Strict = []string{"v.yaml"}, []string{"x=1"}, "shop", true
					r.Include, r.RenderTimeout = []string{"A", "B"}, 5*time.Second
				})}},
		{Name: "ref", Args: []string{"deploy", "--ref", "origin/main"},
			Want: rootOptions{paths: []string{"deploy"}, ref: "origin/main", render: cmdtest.DefaultRender, format: "text"}},
		{Name: "bad duration", Args: []string{"--render-timeout", "soon"}, WantErr: `invalid argument "soon" for "--render-timeout"`},
	})
}
