package list

import (
	"testing"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdtest"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
)

func TestListFlags(t *testing.T) {
	cmdtest.Flags(t, NewCmdList, func(t *testing.T, f *cmdutil.Factory, o *listOptions) {
		cmdtest.SameStreams(t, f, o.ios)
		if o.ctx == nil {
			t.Error("context missing")
		}
		cmdtest.ClearRender(t, &o.render)
		o.ios, o.ctx = nil, nil
	}, []cmdtest.FlagCase[listOptions]{
		{Name: "defaults", Want: listOptions{path: ".", format: "text", render: cmdtest.DefaultRender}},
		{Name: "flags", Args: []string{"deploy", "-f", "a.yaml", "--values", "b.yaml", "--set", "x=1", "--release-name", "r",
			"--namespace", "n", "--config", "c.yaml", "-o", "json"},
			Want: listOptions{path: "deploy", format: "json", render: cmdtest.WithRender(func(r *cmdutil.RenderFlags) {
				r.Values, r.Set, r.ReleaseName, r.Namespace, r.ConfigFile = []string{"a.yaml", "b.yaml"}, []string{"x=1"}, "r", "n", "c.yaml"
			})}},
		{Name: "bad format", Args: []string{"-o", "yaml"}, WantErr: "--format"},
	})
}
