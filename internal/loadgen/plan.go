package loadgen

import "github.com/chaosbench/chaosbench/workloads"

// The load prediction of `loadgen plan` lives in package workloads, where
// the offline side (the capacity report) can reach it too.

// Load is workloads.PartitionLoad.
type Load = workloads.PartitionLoad

// Movement is workloads.Movement.
type Movement = workloads.Movement

// PredictLoad is workloads.PredictLoad.
var PredictLoad = workloads.PredictLoad

// PredictMovement is workloads.PredictMovement.
var PredictMovement = workloads.PredictMovement
