package initcmd

import (
	"testing"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdtest"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
)

func TestInitFlags(t *testing.T) {
	cmdtest.Flags(t, NewCmdInit, func(t *testing.T, f *cmdutil.Factory, o *initOptions) {
		cmdtest.SameStreams(t, f, o.ios)
		if o.ctx == nil {
			t.Error("context missing")
		}
		cmdtest.ClearRender(t, &o.render)
		o.ios, o.ctx = nil, nil
	}, []cmdtest.FlagCase[initOptions]{
		{Name: "defaults", Want: initOptions{path: ".", render: cmdtest.DefaultRender}},
		{Name: "flags", Args: []string{"deploy", "--force", "--stdout", "--release-name", "web"},
			Want: initOptions{path: "deploy", force: true, stdout: true, render: cmdtest.WithRender(func(r *cmdutil.RenderFlags) { r.ReleaseName = "web" })}},
		{Name: "bad bool", Args: []string{"--force=maybe"}, WantErr: `invalid argument "maybe" for "--force"`},
	})
}
