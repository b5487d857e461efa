package explain

import (
	"testing"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdtest"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
)

func TestExplainFlags(t *testing.T) {
	cmdtest.Flags(t, NewCmdExplain, func(t *testing.T, f *cmdutil.Factory, o *explainOptions) {
		cmdtest.SameStreams(t, f, o.ios)
		if o.ctx == nil {
			t.Error("context missing")
		}
		cmdtest.ClearRender(t, &o.render)
		cmdtest.SameVersion(t, f, o.version)
		o.ios, o.ctx, o.version = nil, nil, ""
	}, []cmdtest.FlagCase[explainOptions]{
		{Name: "id", Args: []string{"web"}, Want: explainOptions{id: "web", format: "text", render: cmdtest.DefaultRender}},
		{Name: "id and path", Args: []string{"shop/HorizontalPodAutoscaler/web", "deploy", "-o", "json", "--config", "c.yaml"},
			Want: explainOptions{id: "shop/HorizontalPodAutoscaler/web", path: "deploy", format: "json",
				render: cmdtest.WithRender(func(r *cmdutil.RenderFlags) { r.ConfigFile = "c.yaml" })}},
		{Name: "no id", WantErr: "accepts between 1 and 2 arg(s), received 0"},
	})
}
