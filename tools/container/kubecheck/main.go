// kubecheck validates Kubernetes manifests (a multi-document YAML stream on stdin, as `helm template`
// prints it) against the Kubernetes API types, offline: every document is decoded into its typed
// object from k8s.io/api (the types the API's OpenAPI schemas are generated from) by apimachinery's
// strict decoder, the one kube-apiserver runs for `fieldValidation=Strict`. An unknown or duplicated
// field, a value of the wrong type, or a kind it does not know is an error. It prints one line per
// object and exits 1 on any error.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

func main() {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, policyv1.AddToScheme, networkingv1.AddToScheme,
		monitoringv1.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			fail(err)
		}
	}
	decoder := json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme,
		json.SerializerOptions{Yaml: true, Strict: true})
	reader := utilyaml.NewYAMLReader(bufio.NewReader(os.Stdin))
	objects, problems := 0, 0
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fail(err)
		}
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		objects++
		_, gvk, err := decoder.Decode(doc, nil, nil)
		name := "(unknown kind)"
		if gvk != nil {
			name = gvk.String()
		}
		if err != nil {
			problems++
			fmt.Printf("INVALID %s: %v\n", name, err)
			continue
		}
		fmt.Printf("valid   %s\n", name)
	}
	if objects == 0 {
		fail(errors.New("no object on stdin"))
	}
	fmt.Printf("%d objects, %d invalid\n", objects, problems)
	if problems > 0 {
		os.Exit(1)
	}
}

func stripComments(doc []byte) []byte {
	var out []string
	for _, line := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			out = append(out, line)
		}
	}
	return []byte(strings.Join(out, "\n"))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "kubecheck:", err)
	os.Exit(2)
}
