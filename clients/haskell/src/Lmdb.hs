-- | LMDB's C API through the FFI, bound here (Debian has no Haskell LMDB package). The calls the timed
-- loops make come in two sets, GHC @safe@ and @unsafe@ imports, gathered in an 'Api' record; the
-- workloads take the record and are INLINE, so each specialises to direct calls of one kind.
-- The lmdb-c baseline's own C loops (baselines/lmdbc/baseline.c) are bound too: the "c" variant.
module Lmdb
  ( MDBEnv, MDBTxn, MDBCursor, Dbi, Api (..), safeApi, unsafeApi
  , valSize, valData, setVal, mdbFirst, mdbNext, mdbNotFound, mdbRdonly, mdbAppend, mdbMapFull
  , openEnv, closeEnv, check, lmdbError, version
  , cScan, cLookups, cInsert, cScanConcurrent, cRowSum, cError
  ) where

import Control.Exception (throwIO, ErrorCall (..), bracketOnError)
import Foreign
import Foreign.C

data MDBEnv
data MDBTxn
data MDBCursor
type Dbi = CUInt

-- MDB_val is {size_t mv_size; void *mv_data}: 16 bytes on 64-bit Linux.
valSize :: Ptr a -> IO Int
valSize p = fromIntegral <$> (peekByteOff p 0 :: IO CSize)
{-# INLINE valSize #-}

valData :: Ptr a -> IO (Ptr Word8)
valData p = peekByteOff p 8
{-# INLINE valData #-}

setVal :: Ptr a -> Ptr Word8 -> Int -> IO ()
setVal p d n = pokeByteOff p 0 (fromIntegral n :: CSize) >> pokeByteOff p 8 d
{-# INLINE setVal #-}

mdbFirst, mdbNext, mdbNotFound, mdbMapFull :: CInt
mdbFirst = 0
mdbNext = 8
mdbNotFound = -30798
mdbMapFull = -30792

mdbRdonly, mdbAppend, mdbNoSync, mdbNoTls :: CUInt
mdbRdonly = 0x20000
mdbAppend = 0x20000
mdbNoSync = 0x10000
mdbNoTls = 0x200000

-- | The calls inside timed regions.
data Api = Api
  { txnBegin :: Ptr MDBEnv -> Ptr MDBTxn -> CUInt -> Ptr (Ptr MDBTxn) -> IO CInt
  , txnCommit :: Ptr MDBTxn -> IO CInt
  , txnAbort :: Ptr MDBTxn -> IO ()
  , txnReset :: Ptr MDBTxn -> IO ()
  , txnRenew :: Ptr MDBTxn -> IO CInt
  , cursorOpen :: Ptr MDBTxn -> Dbi -> Ptr (Ptr MDBCursor) -> IO CInt
  , cursorGet :: Ptr MDBCursor -> Ptr () -> Ptr () -> CInt -> IO CInt
  , cursorClose :: Ptr MDBCursor -> IO ()
  , get :: Ptr MDBTxn -> Dbi -> Ptr () -> Ptr () -> IO CInt
  , put :: Ptr MDBTxn -> Dbi -> Ptr () -> Ptr () -> CUInt -> IO CInt
  }

safeApi, unsafeApi :: Api
safeApi = Api s_txn_begin s_txn_commit s_txn_abort s_txn_reset s_txn_renew s_cursor_open s_cursor_get s_cursor_close s_get s_put
unsafeApi = Api u_txn_begin u_txn_commit u_txn_abort u_txn_reset u_txn_renew u_cursor_open u_cursor_get u_cursor_close u_get u_put

foreign import ccall safe "mdb_txn_begin" s_txn_begin :: Ptr MDBEnv -> Ptr MDBTxn -> CUInt -> Ptr (Ptr MDBTxn) -> IO CInt
foreign import ccall safe "mdb_txn_commit" s_txn_commit :: Ptr MDBTxn -> IO CInt
foreign import ccall safe "mdb_txn_abort" s_txn_abort :: Ptr MDBTxn -> IO ()
foreign import ccall safe "mdb_txn_reset" s_txn_reset :: Ptr MDBTxn -> IO ()
foreign import ccall safe "mdb_txn_renew" s_txn_renew :: Ptr MDBTxn -> IO CInt
foreign import ccall safe "mdb_cursor_open" s_cursor_open :: Ptr MDBTxn -> Dbi -> Ptr (Ptr MDBCursor) -> IO CInt
foreign import ccall safe "mdb_cursor_get" s_cursor_get :: Ptr MDBCursor -> Ptr () -> Ptr () -> CInt -> IO CInt
foreign import ccall safe "mdb_cursor_close" s_cursor_close :: Ptr MDBCursor -> IO ()
foreign import ccall safe "mdb_get" s_get :: Ptr MDBTxn -> Dbi -> Ptr () -> Ptr () -> IO CInt
foreign import ccall safe "mdb_put" s_put :: Ptr MDBTxn -> Dbi -> Ptr () -> Ptr () -> CUInt -> IO CInt

foreign import ccall unsafe "mdb_txn_begin" u_txn_begin :: Ptr MDBEnv -> Ptr MDBTxn -> CUInt -> Ptr (Ptr MDBTxn) -> IO CInt
foreign import ccall unsafe "mdb_txn_commit" u_txn_commit :: Ptr MDBTxn -> IO CInt
foreign import ccall unsafe "mdb_txn_abort" u_txn_abort :: Ptr MDBTxn -> IO ()
foreign import ccall unsafe "mdb_txn_reset" u_txn_reset :: Ptr MDBTxn -> IO ()
foreign import ccall unsafe "mdb_txn_renew" u_txn_renew :: Ptr MDBTxn -> IO CInt
foreign import ccall unsafe "mdb_cursor_open" u_cursor_open :: Ptr MDBTxn -> Dbi -> Ptr (Ptr MDBCursor) -> IO CInt
foreign import ccall unsafe "mdb_cursor_get" u_cursor_get :: Ptr MDBCursor -> Ptr () -> Ptr () -> CInt -> IO CInt
foreign import ccall unsafe "mdb_cursor_close" u_cursor_close :: Ptr MDBCursor -> IO ()
foreign import ccall unsafe "mdb_get" u_get :: Ptr MDBTxn -> Dbi -> Ptr () -> Ptr () -> IO CInt
foreign import ccall unsafe "mdb_put" u_put :: Ptr MDBTxn -> Dbi -> Ptr () -> Ptr () -> CUInt -> IO CInt

-- Set-up calls, never timed.
foreign import ccall safe "mdb_env_create" c_env_create :: Ptr (Ptr MDBEnv) -> IO CInt
foreign import ccall safe "mdb_env_set_mapsize" c_env_set_mapsize :: Ptr MDBEnv -> CSize -> IO CInt
foreign import ccall safe "mdb_env_set_maxreaders" c_env_set_maxreaders :: Ptr MDBEnv -> CUInt -> IO CInt
foreign import ccall safe "mdb_env_open" c_env_open :: Ptr MDBEnv -> CString -> CUInt -> CUInt -> IO CInt
foreign import ccall safe "mdb_env_close" c_env_close :: Ptr MDBEnv -> IO ()
foreign import ccall safe "mdb_dbi_open" c_dbi_open :: Ptr MDBTxn -> CString -> CUInt -> Ptr Dbi -> IO CInt
foreign import ccall safe "mdb_strerror" c_strerror :: CInt -> IO CString
foreign import ccall safe "mdb_version" c_version :: Ptr CInt -> Ptr CInt -> Ptr CInt -> IO CString

-- | One line for an LMDB return code.
lmdbError :: String -> CInt -> IO String
lmdbError what rc = do
  msg <- c_strerror rc >>= peekCString
  pure (what ++ ": LMDB: " ++ msg)

check :: String -> CInt -> IO ()
check what rc
  | rc == 0 = pure ()
  | otherwise = lmdbError what rc >>= throwIO . ErrorCall
{-# INLINE check #-}

-- | The LMDB this process runs, as it reports itself: ("0.9.33", "LMDB 0.9.33: (May 21, 2024)").
version :: IO (String, String)
version = alloca $ \a -> alloca $ \b -> alloca $ \c -> do
  s <- c_version a b c >>= peekCString
  [x, y, z] <- mapM peek [a, b, c]
  pure (show x ++ "." ++ show y ++ "." ++ show z, s)

-- | Opens an environment in dir as dbbench's LMDB targets do (MDB_NOSYNC, MDB_NOTLS) and its unnamed
-- database.
openEnv :: FilePath -> Int -> Int -> IO (Ptr MDBEnv, Dbi)
openEnv dir mapSize readers = alloca $ \pe -> do
  check "mdb_env_create" =<< c_env_create pe
  env <- peek pe
  let setup = do
        check "mdb_env_set_mapsize" =<< c_env_set_mapsize env (fromIntegral mapSize)
        check "mdb_env_set_maxreaders" =<< c_env_set_maxreaders env (fromIntegral readers)
        check ("open an LMDB environment in " ++ dir) =<< withCString dir (\d -> c_env_open env d (mdbNoSync + mdbNoTls) 0o644)
        alloca $ \pt -> alloca $ \pd -> do
          check "begin a write transaction" =<< s_txn_begin env nullPtr 0 pt
          txn <- peek pt
          check "open the unnamed database" =<< c_dbi_open txn nullPtr 0 pd
          check "commit" =<< s_txn_commit txn
          peek pd
  dbi <- bracketOnError (pure ()) (const (c_env_close env)) (const setup)
  pure (env, dbi)

closeEnv :: Ptr MDBEnv -> IO ()
closeEnv = c_env_close

-- baselines/lmdbc/baseline.h: the lmdb-c baseline's workloads. A tally is {int64 rows; uint64 sum}.
foreign import ccall safe "dbb_scan" cScan :: Ptr MDBEnv -> Dbi -> Int64 -> Ptr () -> Ptr Int64 -> IO CInt
foreign import ccall safe "dbb_lookups" cLookups :: Ptr MDBEnv -> Dbi -> Ptr Word8 -> Ptr Word32 -> Ptr Int32 -> Int64 -> Ptr Int64 -> Ptr () -> IO CInt
foreign import ccall safe "dbb_insert" cInsert :: Ptr MDBEnv -> Dbi -> Ptr Word8 -> Ptr Word32 -> Ptr Word8 -> Ptr Word32 -> Ptr Word8 -> Int64 -> Int64 -> Ptr Int64 -> Ptr Int64 -> IO CInt
foreign import ccall safe "dbb_scan_concurrent" cScanConcurrent :: Ptr MDBEnv -> Dbi -> CInt -> Int64 -> Ptr Int64 -> Ptr () -> Ptr Int64 -> IO CInt
foreign import ccall unsafe "dbb_rowsum" cRowSum :: Ptr Word8 -> CSize -> Ptr Word8 -> CSize -> CInt -> IO Word64

-- | One line for a code the C loops return (their own codes, else LMDB's).
cError :: CInt -> IO String
cError rc = case rc of
  -1 -> pure "a stored value is too short to be [age][name]"
  -2 -> pure "a reader thread could not be started"
  -3 -> pure "out of memory"
  _ -> lmdbError "lmdb-c loop" rc
