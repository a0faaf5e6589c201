// SpecReader (workloads/loading/spec_reader.h): The spec's "tensors" and, in
// the torch modes, its "ops".
#include "workloads/loading/spec_reader.h"

namespace trn::spec_reader_internal {

absl::StatusOr<TensorDecl> SpecReader::Tensor(const Json& v,
                                              const std::string& path) const {
  static constexpr std::string_view kKeys[] = {"name", "shape", "dtype",
                                               "placement"};
  TRN_RETURN_IF_ERROR(r_.CheckKeys(v, path, kKeys, "a tensor"));
  TensorDecl t;
  TRN_ASSIGN_OR_RETURN(t.name, r_.RequiredString(v, path, "name"));
  TRN_ASSIGN_OR_RETURN(const Json* shape, r_.Required(v, path, "shape"));
  TRN_ASSIGN_OR_RETURN(t.shape, Dims(*shape, JsonChild(path, "shape")));
  TRN_ASSIGN_OR_RETURN(const Json* dtype, r_.Required(v, path, "dtype"));
  TRN_ASSIGN_OR_RETURN(t.dtype, Dtype(*dtype, JsonChild(path, "dtype")));
  if (const Json* p = JsonReader::Optional(v, "placement")) {
    static constexpr std::string_view kNames[] = {"host", "device"};
    TRN_ASSIGN_OR_RETURN(t.placement,
                         Enum<Placement>(*p, JsonChild(path, "placement"),
                                         "placement", &ParsePlacement, kNames));
  }
  return t;
}

absl::StatusOr<std::vector<int64_t>> SpecReader::Dims(
    const Json& v, const std::string& path) const {
  if (!v.is_array()) return r_.Expected(path, "an array of dims", v);
  std::vector<int64_t> dims;
  for (size_t i = 0; i < v.size(); ++i) {
    TRN_ASSIGN_OR_RETURN(int64_t d, r_.Int(v[i], JsonChild(path, i), 1,
                                           kMaxTensorElements, kDimConstraint));
    dims.push_back(d);
  }
  return dims;
}

absl::StatusOr<TorchOp> SpecReader::Op(const Json& v,
                                       const std::string& path) const {
  static constexpr std::string_view kKeys[] = {"op", "inputs", "output"};
  TRN_RETURN_IF_ERROR(r_.CheckKeys(v, path, kKeys, "a torch op"));
  TorchOp op;
  op.json_path = path;
  TRN_ASSIGN_OR_RETURN(op.op, r_.RequiredString(v, path, "op"));
  TRN_ASSIGN_OR_RETURN(const Json* inputs, r_.Required(v, path, "inputs"));
  TRN_ASSIGN_OR_RETURN(op.inputs,
                       r_.StringArray(*inputs, JsonChild(path, "inputs")));
  TRN_ASSIGN_OR_RETURN(op.output, r_.RequiredString(v, path, "output"));
  return op;
}

}  // namespace trn::spec_reader_internal
