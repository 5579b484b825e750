export declare const REPO_ROOT: string;
export declare const PUBLISHED_PACKAGES: readonly string[];

export interface PackedPackage {
  name: string;
  version: string;
  /** The workspace folder, e.g. `packages/core`. */
  workspace: string;
  /** The .tgz file. */
  tarball: string;
  /** The unpacked `package/` folder of the tarball. */
  unpacked: string;
  /** Paths inside the tarball, sorted. */
  files: string[];
}

/** Runs `npm pack` for every published package into `outDir` and unpacks each tarball there. */
export declare function packAll(outDir: string): PackedPackage[];
