package cmdutil

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"
)

// byteSize is a flag holding a number of bytes, written as a Kubernetes
// quantity ("768Mi", "2Gi", "500M") as in a container's memory limit.
type byteSize int64

func (b byteSize) String() string {
	return resource.NewQuantity(int64(b), resource.BinarySI).String()
}

func (b *byteSize) Set(s string) error {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return fmt.Errorf("%q is not a size such as 768Mi or 2Gi", s)
	}
	v, ok := q.AsInt64()
	if !ok || v <= 0 {
		return fmt.Errorf("%q is not a positive whole number of bytes", s)
	}
	*b = byteSize(v)
	return nil
}

func (b *byteSize) Type() string { return "size" }
