export {
  protectedResourceMetadata,
  protectedResourceMetadataRouter,
  protectedResourceMetadataUrl,
  PROTECTED_RESOURCE_METADATA_PATH,
  type ProtectedResourceMetadataOptions,
} from './metadata.js';
