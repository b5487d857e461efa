package diffcmd

import (
	"testing"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdtest"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
)

func TestDiffFlags(t *testing.T) {
	cmdtest.Flags(t, NewCmdDiff, func(t *testing.T, f *cmdutil.Factory, o *diffOptions) {
		cmdtest.SameStreams(t, f, o.ios)
		if o.ctx == nil || o.git == nil {
			t.Error("context or git runner missing")
		}
		cmdtest.ClearRender(t, &o.render)
		cmdtest.SameVersion(t, f, o.version)
		o.ios, o.ctx, o.git, o.version = nil, nil, nil, ""
	}, []cmdtest.FlagCase[diffOptions]{
		{Name: "base ref", Args: []string{"deploy/prod/", "--base-ref", "origin/main", "-f", "v.yaml", "--set", "a=b", "-o", "json", "--head-json", "h.json"},
			Want: diffOptions{path: "deploy/prod", baseRef: "origin/main", format: "json", headJSON: "h.json", scope: "new",
				render: cmdtest.WithRender(func(r *cmdutil.RenderFlags) { r.Values, r.Set = []string{"v.yaml"}, []string{"a=b"} })}},
		{Name: "defaults", Args: []string{"--base-dir", "old"}, Want: diffOptions{path: ".", baseDir: "old", format: "markdown", scope: "new", render: cmdtest.DefaultRender}},
		{Name: "base json", Args: []string{"--base-json", "b.json", "-o", "text"}, Want: diffOptions{path: ".", baseJSON: "b.json", format: "text", scope: "new", render: cmdtest.DefaultRender}},
		{Name: "gate", Args: []string{"--base-json", "b.json", "--fail-on-scope", "all", "--fail-on-worse", "12.5"},
			Want: diffOptions{path: ".", baseJSON: "b.json", format: "markdown", scope: "all", worse: 12.5, render: cmdtest.DefaultRender}},
		{Name: "two paths", Args: []string{"a", "b"}, WantErr: "accepts at most 1 arg(s), received 2"},
	})
}
