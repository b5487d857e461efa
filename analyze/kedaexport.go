package analyze

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"

	"github.com/capreport/capreport/analyze/keda"
	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render"
)

// KEDAConversion is what capreport derives from one ScaledObject: the
// HorizontalPodAutoscaler KEDA's operator would create for it (its name
// and spec) and, when capreport would not price it because KEDA would not
// create that HPA (a refused trigger, invalid bounds, a pause), the first
// reason.
type KEDAConversion struct {
	HPAName  string
	Spec     autoscalingv2.HorizontalPodAutoscalerSpec
	Refused  string
	Findings []check.Finding
}

// ConvertScaledObject runs the conversion Extract applies to a ScaledObject
// on one decoded manifest (as render decodes it: metadata.name and
// metadata.annotations are read from doc), with nothing else around it.
// It is exported for internal/kedadiff, which compares it with the HPA
// KEDA's own code derives; an error means the manifest does not decode.
func ConvertScaledObject(doc map[string]any) (KEDAConversion, error) {
	meta, _ := doc["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	r, err := keda.Translate(render.Object{APIVersion: "keda.sh/v1alpha1", Kind: "ScaledObject", Name: name, Doc: doc}, annotationsOf(doc))
	if err != nil {
		return KEDAConversion{}, err
	}
	return KEDAConversion{HPAName: r.HPAName, Spec: r.Spec, Refused: r.Unpriced, Findings: r.Findings}, nil
}
