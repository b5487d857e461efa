package mergecmd

import (
	"testing"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdtest"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/config"
)

func TestMergeFlags(t *testing.T) {
	cmdtest.Flags(t, NewCmdMerge, func(t *testing.T, f *cmdutil.Factory, o *mergeOptions) {
		cmdtest.SameStreams(t, f, o.ios)
		o.ios = nil
	}, []cmdtest.FlagCase[mergeOptions]{
		{Name: "defaults", Args: []string{"a.json", "b.json", "c.json", "-o", "markdown"},
			Want: mergeOptions{files: []string{"a.json", "b.json", "c.json"}, format: "markdown", failOn: config.FailOnError, maxReportBytes: cmdutil.DefaultMaxReportBytes}},
		{Name: "flags", Args: []string{"a.json", "--prefer", "last", "--fail-on", "never", "--pretty", "--max-report-bytes", "1000"},
			Want: mergeOptions{files: []string{"a.json"}, format: "json", prefer: "last", failOn: "never", pretty: true, maxReportBytes: 1000}},
		{Name: "no report", WantErr: "requires at least 1 arg(s)"},
	})
}
