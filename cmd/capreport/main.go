// Command capreport prices the Kubernetes autoscalers of a GitOps repository:
// it renders Helm charts and Kustomize overlays in-process, extracts every
// HorizontalPodAutoscaler and KEDA ScaledObject, simulates the v1.34 HPA
// controller against a fluid model of each workload, and reports the bill.
package main

import (
	"os"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/internal/gcpace"
	"github.com/capreport/capreport/render"
)

// parentHeapLimit is the heap the command's own process reaches before
// its first collection (its render workers pace their own).
const parentHeapLimit = 64 << 20

func main() {
	if render.IsWorker() { // capreport started itself to render one source at a time
		os.Exit(render.ServeWorker())
	}
	// Most commands end before their heap reaches a few tens of megabytes:
	// collect only past parentHeapLimit, as the run grows large.
	gcpace.Start(parentHeapLimit)
	os.Exit(run(os.Args[1:], cmdutil.SystemStreams()))
}
