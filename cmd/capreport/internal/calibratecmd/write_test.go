package calibratecmd

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capreport/capreport/calibrate"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/internal/testutil"
	"github.com/capreport/capreport/pipeline"
)

// TestCalibrateWritesNoLink: calibrate's write itself refuses a
// .capreport.yaml that is a link, dangling or not, even when the file was
// a regular one when it was loaded (swapped in between).
func TestCalibrateWritesNoLink(t *testing.T) {
	results := []calibrate.Result{{Workload: calibrate.Workload{Namespace: "shop", Kind: "Deployment", Name: "web"},
		Values: []calibrate.Value{{Key: config.KeyDeadTime, Text: "47s", Number: 47,
			Record: config.Measurement{Query: "q", Window: "1d", Samples: 9, At: time.Unix(0, 0)}}}}}
	for _, loaded := range []bool{false, true} {
		for _, exists := range []bool{false, true} {
			repo, outside := t.TempDir(), t.TempDir()
			victim := filepath.Join(outside, "victim.yaml")
			if exists {
				testutil.WriteTree(t, outside, map[string]string{"victim.yaml": "# keep\n"})
			}
			link := filepath.Join(repo, config.FileName)
			testutil.Symlink(t, victim, link)
			cfg := config.Default()
			if loaded {
				cfg.File = link
			}
			var out, errOut bytes.Buffer
			err := writeCalibration(&cmdutil.IOStreams{Out: &out, ErrOut: &errOut}, &calibrateOptions{path: repo}, &pipeline.Repo{Config: cfg}, results, 1)
			if err == nil || !strings.Contains(err.Error(), "is a symlink") || strings.Contains(err.Error(), outside) {
				t.Errorf("loaded %v, target exists %v: err = %v, want a refusal naming the link only", loaded, exists, err)
			}
			got, rerr := os.ReadFile(victim)
			if exists && string(got) != "# keep\n" || !exists && !errors.Is(rerr, os.ErrNotExist) {
				t.Errorf("loaded %v, target exists %v: written through the link: %q", loaded, exists, got)
			}
		}
	}
}
