package pipeline

import (
	"strings"

	"helm.sh/helm/v3/pkg/chartutil"
	"k8s.io/apimachinery/pkg/util/validation"
)

// validateHelmFlags checks the flags Helm would refuse before anything
// renders, as helm template does: --kube-version must parse as a
// Kubernetes version (chartutil.ParseKubeVersion), --release-name must be
// a release name (chartutil.ValidateReleaseName: DNS-1123 subdomain of at
// most 53 characters), --namespace a DNS-1123 label.
func (s *Settings) validateHelmFlags() error {
	if s.KubeVersion != "" {
		if _, err := chartutil.ParseKubeVersion(s.KubeVersion); err != nil {
			return inputErrorf("kube-version", "%q is not a Kubernetes version (like 1.34.0): %v", s.KubeVersion, err)
		}
	}
	if s.ReleaseName != "" {
		if err := chartutil.ValidateReleaseName(s.ReleaseName); err != nil {
			return inputErrorf("release-name", "%q: %v", s.ReleaseName, err)
		}
	}
	if s.Namespace != "" {
		if errs := validation.IsDNS1123Label(s.Namespace); len(errs) > 0 {
			return inputErrorf("namespace", "%q is not a namespace name: %s", s.Namespace, strings.Join(errs, "; "))
		}
	}
	return nil
}
