package checks

import (
	"testing"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdtest"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
)

func TestChecksFlags(t *testing.T) {
	cmdtest.Flags(t, NewCmdChecks, func(t *testing.T, f *cmdutil.Factory, o *checksOptions) {
		cmdtest.SameStreams(t, f, o.ios)
		o.ios = nil
	}, []cmdtest.FlagCase[checksOptions]{
		{Name: "defaults", Want: checksOptions{format: "text"}},
		{Name: "markdown", Args: []string{"-o", "markdown"}, Want: checksOptions{format: "markdown"}},
		{Name: "argument", Args: []string{"CR001"}, WantErr: `unknown command "CR001"`},
	})
}
