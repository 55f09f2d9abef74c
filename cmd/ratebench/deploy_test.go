package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// manifest is what the test reads of a Kubernetes object in deploy/.
type manifest struct {
	Kind     string                `yaml:"kind"`
	Metadata struct{ Name string } `yaml:"metadata"`
	Data     map[string]string     `yaml:"data"`
	Spec     struct {
		Completions *int `yaml:"completions"`
		Parallelism *int `yaml:"parallelism"`
		Template    struct {
			Spec struct {
				Containers []struct {
					Image   string   `yaml:"image"`
					Command []string `yaml:"command"`
					Args    []string `yaml:"args"`
					EnvFrom []struct {
						ConfigMapRef struct{ Name string } `yaml:"configMapRef"`
					} `yaml:"envFrom"`
				} `yaml:"containers"`
				Volumes []struct {
					PersistentVolumeClaim struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

func readManifest(t *testing.T, name string) manifest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "deploy", name))
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(false)
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("deploy/%s: %v", name, err)
	}
	return m
}

// The manifests in deploy/ parse as YAML and agree with each other: the
// shard count of the configuration is the Job's completions and
// parallelism, every pod mounts the one volume claim and runs the image
// the Dockerfile builds, and what the merge reads is what the shards
// write. Then the shards' and the merge's commands, run here on a small
// trace with /data in a temporary folder, give the summary one replay of
// the whole trace gives, byte for byte.
func TestDeployManifestsAgree(t *testing.T) {
	cfg, claim := readManifest(t, "config.yaml"), readManifest(t, "volume-claim.yaml")
	shards, merge := readManifest(t, "shards-job.yaml"), readManifest(t, "merge-job.yaml")
	if cfg.Kind != "ConfigMap" || claim.Kind != "PersistentVolumeClaim" || shards.Kind != "Job" || merge.Kind != "Job" {
		t.Fatalf("kinds: %s, %s, %s, %s", cfg.Kind, claim.Kind, shards.Kind, merge.Kind)
	}
	n, err := strconv.Atoi(cfg.Data["SHARDS"])
	if err != nil || n < 1 || cfg.Data["TRACE"] == "" || cfg.Data["RULES"] == "" {
		t.Fatalf("config.yaml: %v", cfg.Data)
	}
	if c, p := shards.Spec.Completions, shards.Spec.Parallelism; c == nil || p == nil || *c != n || *p != n {
		t.Errorf("shards-job.yaml: completions and parallelism are not config.yaml's SHARDS, %d", n)
	}
	dockerfile, err := os.ReadFile(filepath.Join("..", "..", "deploy", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	image := regexp.MustCompile(`docker build -f deploy/Dockerfile -t (\S+) \.`).FindSubmatch(dockerfile)
	if image == nil {
		t.Fatal("deploy/Dockerfile does not say the image it builds")
	}
	for name, m := range map[string]manifest{"shards-job.yaml": shards, "merge-job.yaml": merge} {
		sp := m.Spec.Template.Spec
		if len(sp.Containers) != 1 || len(sp.Volumes) != 1 || sp.Volumes[0].PersistentVolumeClaim.ClaimName != claim.Metadata.Name {
			t.Fatalf("%s: want one container and the volume claim %s: %+v", name, claim.Metadata.Name, sp)
		}
		if c := sp.Containers[0]; c.Image != string(image[1]) || len(c.Args) != 1 || !strings.HasPrefix(c.Args[0], "exec ratebench ") {
			t.Errorf("%s: image %s (the Dockerfile builds %s), args %q", name, c.Image, image[1], c.Args)
		}
	}
	if e := shards.Spec.Template.Spec.Containers[0].EnvFrom; len(e) != 1 || e[0].ConfigMapRef.Name != cfg.Metadata.Name {
		t.Errorf("shards-job.yaml does not take its environment from %s: %+v", cfg.Metadata.Name, e)
	}
	shardArgs, mergeArgs := shards.Spec.Template.Spec.Containers[0].Args[0], merge.Spec.Template.Spec.Containers[0].Args[0]
	if !strings.Contains(shardArgs, `-o "/data/results/shard-${JOB_COMPLETION_INDEX}"`) || !strings.Contains(mergeArgs, "/data/results/shard-*") {
		t.Errorf("the merge does not read what the shards write:\n%s\n%s", shardArgs, mergeArgs)
	}

	// The commands, run.
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	bin := filepath.Join(tmp, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	buildCommand(t, bin)
	trace, err := os.ReadFile(filepath.Join("testdata", "small.csv"))
	if err != nil {
		t.Fatal(err)
	}
	traceOnVolume := strings.Replace(cfg.Data["TRACE"], "/data", data, 1)
	traceOnVolume = strings.TrimSuffix(traceOnVolume, filepath.Ext(traceOnVolume)) + ".csv" // a CSV stands for the Parquet file
	if err := os.MkdirAll(filepath.Dir(traceOnVolume), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(traceOnVolume, trace, 0o644); err != nil {
		t.Fatal(err)
	}
	// The manifests' commands with the volume at data.
	shardArgs = strings.ReplaceAll(shardArgs, "/data/", data+"/")
	mergeArgs = strings.ReplaceAll(mergeArgs, "/data/", data+"/")
	sh := func(script string, env ...string) {
		t.Helper()
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Env = append(os.Environ(), append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", script, err, out)
		}
	}
	for i := range n {
		sh(shardArgs, fmt.Sprint("JOB_COMPLETION_INDEX=", i), "SHARDS="+cfg.Data["SHARDS"], "TRACE="+traceOnVolume, "RULES="+cfg.Data["RULES"])
	}
	sh(mergeArgs)
	whole := filepath.Join(tmp, "whole")
	sh("exec ratebench compare -trace " + traceOnVolume + " -rule " + cfg.Data["RULES"] + " -report=false -o " + whole)
	got, err := os.ReadFile(filepath.Join(data, "results", "all", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join(whole, "summary.json"))
	if !bytes.Equal(got, want) {
		t.Errorf("the merged shards' summary differs from the whole replay's (%d and %d bytes)", len(got), len(want))
	}
}
