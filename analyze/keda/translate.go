package keda

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render"
)

// Result is a translated ScaledObject: the HPA KEDA's operator would
// create (its name, spec and metrics described), the KEDA settings
// capreport keeps, the findings of the translation, and, when KEDA
// would not create that HPA (a refused trigger, invalid bounds, a
// pause), the first reason, which leaves the autoscaler unpriced.
type Result struct {
	HPAName  string
	Spec     autoscalingv2.HorizontalPodAutoscalerSpec
	Metrics  []Metric
	KEDA     *KEDA
	Findings []check.Finding
	Unpriced string
}

// Translate builds the HPA KEDA v2.19 would create for a ScaledObject,
// as its operator derives it, with its admission webhook's checks as
// findings; annotations are the ScaledObject's. An error means the
// manifest does not decode.
func Translate(obj render.Object, annotations map[string]string) (Result, error) {
	r, err := translateScaledObject(obj, annotations)
	if err != nil {
		return Result{}, err
	}
	return Result{HPAName: r.hpaName, Spec: r.spec, Metrics: r.metrics, KEDA: r.keda, Findings: r.findings, Unpriced: r.unpriced}, nil
}
