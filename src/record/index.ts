/** Saving and loading: the safetensors format, for tensors and for modules. */
export { encodeSafetensors, decodeSafetensors, type DecodeOptions, type SafeTensor, type SafetensorsFile } from './safetensors.js';
export { recordToSafetensors, safetensorsToRecord, saveModule, loadModule } from './module.js';
export { loadTorchStateDict, saveTorchStateDict, torchEntries, type TorchEntry, type TorchLoadOptions, type TorchLoadReport } from './torch.js';
