package kedadiff

import (
	"encoding/json"

	kedav1alpha1 "github.com/kedacore/keda/v2/apis/keda/v1alpha1"

	"github.com/capreport/capreport/analyze"
)

// capreportSide converts the ScaledObject as capreport reads it: the
// manifest as a decoded document (what render hands analyze).
func capreportSide(so *kedav1alpha1.ScaledObject) outcome {
	b, err := json.Marshal(so)
	if err != nil {
		return refused("marshal: %v", err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		return refused("unmarshal: %v", err)
	}
	c, err := analyze.ConvertScaledObject(doc)
	if err != nil {
		return refused("does not decode: %v", err)
	}
	var flags []string
	for _, f := range c.Findings {
		flags = append(flags, f.Check)
	}
	if c.Refused != "" {
		o := refused("%s", c.Refused)
		o.Flags = flags
		return o
	}
	return outcome{HPAName: c.HPAName, Spec: &c.Spec, Flags: flags}
}
