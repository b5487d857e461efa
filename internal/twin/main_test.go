package twin

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/klog/v2"
)

// planeLog is where the control plane's own log goes: kube-apiserver and
// kube-controller-manager log thousands of lines a minute through klog,
// which would bury the criteria in the test's output. A failing test
// prints its tail (see logTail).
var planeLog string

func TestMain(m *testing.M) {
	flags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(flags)
	dir, err := os.MkdirTemp("", "twin-log-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	planeLog = filepath.Join(dir, "plane.log")
	for name, value := range map[string]string{
		"logtostderr": "false", "alsologtostderr": "false", "stderrthreshold": "FATAL",
		"log_file": planeLog, "one_output": "true", "skip_log_headers": "true",
	} {
		if err := flags.Set(name, value); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	code := m.Run()
	klog.Flush()
	if code == 0 {
		os.RemoveAll(dir)
	} else {
		fmt.Fprintf(os.Stderr, "the control plane's log: %s\n", planeLog)
	}
	os.Exit(code)
}
