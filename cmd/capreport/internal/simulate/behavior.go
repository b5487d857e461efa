package simulate

import (
	"fmt"
	"io"
	"os"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"sigs.k8s.io/yaml"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
)

// maxBehaviorBytes bounds a --behavior file; a behavior block is a few
// hundred bytes.
const maxBehaviorBytes = 1 << 20

// readBehavior reads --behavior FILE in the HPA's own YAML shape: a whole
// HorizontalPodAutoscaler (its spec.behavior), a mapping with a behavior:
// key, or the block itself (scaleUp, scaleDown). Unknown fields and values
// the API server would refuse are usage errors.
func readBehavior(flag, path string) (*autoscalingv2.HorizontalPodAutoscalerBehavior, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, cmdutil.FlagErrorf(flag, "%v", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxBehaviorBytes+1))
	if err != nil || len(data) > maxBehaviorBytes {
		return nil, cmdutil.FlagErrorf(flag, "%s: unreadable or larger than 1 MiB", path)
	}
	var shape struct {
		Kind     string          `json:"kind"`
		Behavior *yamlRawMessage `json:"behavior"`
		Spec     struct {
			Behavior *yamlRawMessage `json:"behavior"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &shape); err != nil {
		return nil, cmdutil.FlagErrorf(flag, "%s: %v", path, err)
	}
	block := data
	switch {
	case shape.Kind == "HorizontalPodAutoscaler" && shape.Spec.Behavior != nil:
		block = *shape.Spec.Behavior
	case shape.Behavior != nil:
		block = *shape.Behavior
	}
	var b autoscalingv2.HorizontalPodAutoscalerBehavior
	if err := yaml.UnmarshalStrict(block, &b); err != nil {
		return nil, cmdutil.FlagErrorf(flag, "%s: %v", path, err)
	}
	if err := validateBehavior(&b); err != nil {
		return nil, cmdutil.FlagErrorf(flag, "%s: %v", path, err)
	}
	return &b, nil
}

// yamlRawMessage keeps a sub-document as JSON for a second, strict decode.
type yamlRawMessage []byte

func (m *yamlRawMessage) UnmarshalJSON(b []byte) error {
	*m = append((*m)[:0], b...)
	return nil
}

// validateBehavior holds a behavior block to the autoscaling/v2 API
// server's validation (pkg/apis/autoscaling/validation, v1.34): windows in
// [0, 3600] s, policies of type Pods or Percent with a positive value and a
// period in (0, 1800] s, selectPolicy Max, Min or Disabled, a tolerance
// not below 0.
func validateBehavior(b *autoscalingv2.HorizontalPodAutoscalerBehavior) error {
	for name, r := range map[string]*autoscalingv2.HPAScalingRules{"scaleUp": b.ScaleUp, "scaleDown": b.ScaleDown} {
		if r == nil {
			continue
		}
		if w := r.StabilizationWindowSeconds; w != nil && (*w < 0 || *w > 3600) {
			return fmt.Errorf("%s.stabilizationWindowSeconds %d is outside [0, 3600]", name, *w)
		}
		if s := r.SelectPolicy; s != nil && *s != autoscalingv2.MaxChangePolicySelect && *s != autoscalingv2.MinChangePolicySelect && *s != autoscalingv2.DisabledPolicySelect {
			return fmt.Errorf("%s.selectPolicy %q is not Max, Min or Disabled", name, *s)
		}
		if t := r.Tolerance; t != nil && t.Sign() < 0 {
			return fmt.Errorf("%s.tolerance %s is negative", name, t)
		}
		for i, p := range r.Policies {
			switch {
			case p.Type != autoscalingv2.PodsScalingPolicy && p.Type != autoscalingv2.PercentScalingPolicy:
				return fmt.Errorf("%s.policies[%d].type %q is not Pods or Percent", name, i, p.Type)
			case p.Value <= 0:
				return fmt.Errorf("%s.policies[%d].value %d must be positive", name, i, p.Value)
			case p.PeriodSeconds <= 0 || p.PeriodSeconds > 1800:
				return fmt.Errorf("%s.policies[%d].periodSeconds %d is outside (0, 1800]", name, i, p.PeriodSeconds)
			}
		}
	}
	return nil
}
