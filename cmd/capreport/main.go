// Command capreport prices the Kubernetes autoscalers of a GitOps repository:
// it renders Helm charts and Kustomize overlays in-process, extracts every
// HorizontalPodAutoscaler and KEDA ScaledObject, simulates the v1.34 HPA
// controller against a fluid model of each workload, and reports the bill.
package main

import (
	"os"

	"github.com/capreport/capreport/render"
)

func main() {
	if render.IsWorker() { // capreport started itself to render one source at a time
		os.Exit(render.ServeWorker())
	}
	os.Exit(run(os.Args[1:], systemStreams()))
}
