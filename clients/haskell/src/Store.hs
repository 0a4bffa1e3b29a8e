{-# LANGUAGE BangPatterns #-}
-- | The LMDB store: an environment in temp_dir opened like dbbench's LMDB targets (MDB_NOSYNC, one
-- unnamed database, key = email bytes, value = [age u8][name bytes]) and the four common workloads,
-- each in one of streamly-lmdb's plain-IO variants (unsafe or safe FFI calls; values read in place or
-- copied into ByteStrings) or as the lmdb-c baseline's C loop called once (the "c" variant).
module Store
  ( Ffi (..), Config (..), Store (..), Tally (..)
  , openStore, closeStore, load, scan, lookups, insert, dropKept, concurrent
  ) where

import Control.Concurrent
import Control.Exception (ErrorCall (..), SomeException, catch, throwIO, finally, try)
import Data.Maybe (isJust)
import Control.Monad
import qualified Data.ByteString as B
import qualified Data.ByteString.Unsafe as BU
import Data.IORef
import Foreign
import Foreign.C
import GHC.Clock (getMonotonicTimeNSec)
import System.Directory (createDirectoryIfMissing, removeDirectoryRecursive)
import System.FilePath ((</>))

import Lmdb
import Persons

data Ffi = Unsafe | Safe | CLoops deriving (Eq, Show)

data Config = Config { cfgFfi :: !Ffi, cfgCopy :: !Bool, cfgMapSize :: !Int }

data Store = Store
  { sP :: !Persons, sEnv :: !(Ptr MDBEnv), sDbi :: !Dbi, sDir :: !FilePath, sCfg :: !Config
  , sInserts :: !(IORef Int)
  , sKept :: !(IORef (Maybe FilePath)) -- ^ the fresh store an insert with keep left (protocol 2), until drop
  }

-- | Rows read, their RowSum total, and the time (ns) the work took.
data Tally = Tally { tRows :: !Int, tSum :: !Word64, tNs :: !Word64 }

-- | Readers a store allows: LMDB's default table size, as dbbench's LMDB targets.
maxReaders :: Int
maxReaders = 126

badValue :: CInt
badValue = -1

fail1 :: String -> IO a
fail1 = throwIO . ErrorCall

openStore :: Persons -> FilePath -> Config -> IO Store
openStore p temp cfg = do
  let dir = temp </> "lmdb"
  createDirectoryIfMissing True dir
  (env, dbi) <- openEnv dir (cfgMapSize cfg) maxReaders
  Store p env dbi dir cfg <$> newIORef 0 <*> newIORef Nothing

closeStore :: Store -> IO ()
closeStore s = (closeEnv (sEnv s) >> (readIORef (sKept s) >>= mapM_ (const (dropKept s))))
  `finally` removeDirectoryRecursive (sDir s)

-- | Removes the store the last insert kept (protocol 2's drop).
dropKept :: Store -> IO ()
dropKept s = do
  k <- atomicModifyIORef' (sKept s) (\x -> (Nothing, x))
  maybe (fail1 "drop: no insert's store is kept") removeDirectoryRecursive k

writeError :: Store -> CInt -> IO a
writeError s rc
  | rc == mdbMapFull = fail1 ("the LMDB map is full at map_size " ++ show (cfgMapSize (sCfg s)) ++ " bytes: raise the map_size option")
  | otherwise = lmdbError "write" rc >>= fail1

-- | Stores every person in email order with MDB_APPEND in one write transaction (the LMDB targets'
-- bulk path). On the calling (bound, main) thread: a write transaction must stay on one OS thread.
load :: Store -> IO Tally
load s = withTxn $ \pt -> allocaBytes 32 $ \kv -> allocaBytes 256 $ \val -> do
  let p = sP s
      (k, v) = (castPtr kv, kv `plusPtr` 16)
  t0 <- getMonotonicTimeNSec
  check "begin the load" =<< s_begin (sEnv s) nullPtr 0 pt
  txn <- peek pt
  forM_ [0 .. pCount p - 1] $ \j -> do
    i <- fromIntegral <$> peekElemOff (pSorted p) j
    (e, el) <- email p i
    (nm, nl) <- name p i
    when (nl > 254) $ txnAbort unsafeApi txn >> fail1 ("person " ++ show i ++ ": name longer than 254 bytes")
    age p i >>= poke val
    copyBytes (val `plusPtr` 1) nm nl
    setVal k e el
    setVal v val (nl + 1)
    rc <- put unsafeApi txn (sDbi s) k v mdbAppend
    when (rc /= 0) $ txnAbort unsafeApi txn >> writeError s rc
  rc <- txnCommit unsafeApi txn
  when (rc /= 0) $ writeError s rc
  t1 <- getMonotonicTimeNSec
  pure (Tally (pCount p) 0 (t1 - t0))
  where s_begin = txnBegin unsafeApi

withTxn :: (Ptr (Ptr MDBTxn) -> IO a) -> IO a
withTxn = alloca

-- | Decodes a stored pair and folds it into RowSum: in place, or (copy) after copying key and value
-- into ByteStrings, as a Haskell program that keeps them past the transaction would.
decode :: Bool -> Ptr () -> Ptr () -> IO (Maybe Word64)
decode copy k v = do
  kd <- valData k
  kl <- valSize k
  vd <- valData v
  vl <- valSize v
  if vl == 0
    then pure Nothing
    else if copy
      then do
        kb <- B.packCStringLen (castPtr kd, kl)
        vb <- B.packCStringLen (castPtr vd, vl)
        BU.unsafeUseAsCStringLen kb $ \(kp, kn) -> BU.unsafeUseAsCStringLen vb $ \(vp, vn) -> do
          a <- peek (castPtr vp)
          Just <$> rowSum (castPtr kp) kn (castPtr vp `plusPtr` 1) (vn - 1) a
      else do
        a <- peek vd
        Just <$> rowSum kd kl (vd `plusPtr` 1) (vl - 1) a
{-# INLINE decode #-}

-- | A scan of up to n pairs in one read transaction; also returns its start and end times.
scanWith :: Api -> Bool -> Ptr MDBEnv -> Dbi -> Int -> IO (Tally, Word64, Word64)
scanWith api copy env dbi n = alloca $ \pt -> alloca $ \pc -> allocaBytes 32 $ \kv -> do
  let (k, v) = (castPtr kv, kv `plusPtr` 16)
  t0 <- getMonotonicTimeNSec
  rc0 <- txnBegin api env nullPtr mdbRdonly pt
  when (rc0 /= 0) $ check "begin a read transaction" rc0
  txn <- peek pt
  rc1 <- cursorOpen api txn dbi pc
  when (rc1 /= 0) $ txnAbort api txn >> check "open a cursor" rc1
  cur <- peek pc
  let go !rows !acc !op
        | rows >= n = pure (rows, acc, 0)
        | otherwise = do
            rc <- cursorGet api cur k v op
            if rc /= 0
              then pure (rows, acc, rc)
              else do
                r <- decode copy k v
                case r of
                  Nothing -> pure (rows, acc, badValue)
                  Just x -> go (rows + 1) (acc + x) mdbNext
  (rows, acc, rc) <- go 0 0 mdbFirst
  cursorClose api cur
  txnAbort api txn
  t1 <- getMonotonicTimeNSec
  when (rc == badValue) $ fail1 "a stored value is too short to be [age][name]"
  when (rc /= 0 && rc /= mdbNotFound) $ check "mdb_cursor_get" rc
  pure (Tally rows acc (t1 - t0), t0, t1)
{-# INLINE scanWith #-}

-- | The variant's scan, specialised: each case inlines scanWith with a known Api and copy flag, so the
-- loop makes direct calls of one kind.
scanT :: Config -> Ptr MDBEnv -> Dbi -> Int -> IO (Tally, Word64, Word64)
scanT cfg env dbi n = case (cfgFfi cfg, cfgCopy cfg) of
  (Safe, False) -> scanWith safeApi False env dbi n
  (Safe, True) -> scanWith safeApi True env dbi n
  (_, False) -> scanWith unsafeApi False env dbi n
  (_, True) -> scanWith unsafeApi True env dbi n

scan :: Store -> Int -> IO Tally
scan s n = case cfgFfi (sCfg s) of
  CLoops -> allocaBytes 16 $ \t -> alloca $ \ns -> do
    fillBytes t 0 16 -- the C loops add to the tally they are given
    rc <- cScan (sEnv s) (sDbi s) (fromIntegral n) t ns
    when (rc /= 0) $ cError rc >>= fail1
    peek ns >>= tally t . fromIntegral
  _ -> (\(t, _, _) -> t) <$> scanT (sCfg s) (sEnv s) (sDbi s) n

-- | Reads a C tally {int64 rows; uint64 sum}.
tally :: Ptr () -> Word64 -> IO Tally
tally t ns = do
  rows <- peekByteOff t 0 :: IO Int64
  acc <- peekByteOff t 8
  pure (Tally (fromIntegral rows) acc ns)

-- | Looks up each person in its own read transaction: one spare transaction, renewed before and reset
-- after every lookup (the lmdb-c baseline's strategy), timed per lookup into lat.
lookupsWith :: Api -> Bool -> Store -> Ptr Int32 -> Int -> Ptr Int64 -> IO (Int, Word64)
lookupsWith api copy s idx n lat = alloca $ \pt -> allocaBytes 32 $ \kv -> do
  let (k, v) = (castPtr kv, kv `plusPtr` 16)
      p = sP s
  check "begin a read transaction" =<< txnBegin api (sEnv s) nullPtr mdbRdonly pt
  txn <- peek pt
  txnReset api txn
  let go !j !rows !acc
        | j >= n = pure (rows, acc, 0)
        | otherwise = do
            i <- fromIntegral <$> peekElemOff idx j
            t0 <- getMonotonicTimeNSec
            (e, el) <- email p i
            setVal k e el
            rc0 <- txnRenew api txn
            if rc0 /= 0 then pure (rows, acc, rc0) else do
              rc <- get api txn (sDbi s) k v
              r <- if rc == 0 then decode copy k v else pure (Just 0)
              txnReset api txn
              t1 <- getMonotonicTimeNSec
              pokeElemOff lat j (fromIntegral (t1 - t0))
              case r of
                Nothing -> pure (rows, acc, badValue)
                Just x
                  | rc == 0 -> go (j + 1) (rows + 1) (acc + x)
                  | rc == mdbNotFound -> go (j + 1) rows acc
                  | otherwise -> pure (rows, acc, rc)
  (rows, acc, rc) <- go 0 0 0
  txnAbort api txn
  when (rc == badValue) $ fail1 "a stored value is too short to be [age][name]"
  when (rc /= 0) $ check "lookup" rc
  pure (rows, acc)
{-# INLINE lookupsWith #-}

lookups :: Store -> Ptr Int32 -> Int -> Ptr Int64 -> IO (Int, Word64)
lookups s idx n lat = case (cfgFfi (sCfg s), cfgCopy (sCfg s)) of
  (CLoops, _) -> allocaBytes 16 $ \t -> do
    let p = sP s
    fillBytes t 0 16
    rc <- cLookups (sEnv s) (sDbi s) (pEmails p) (pEoff p) idx (fromIntegral n) lat t
    when (rc /= 0) $ cError rc >>= fail1
    Tally rows acc _ <- tally t 0
    pure (rows, acc)
  (Safe, False) -> lookupsWith safeApi False s idx n lat
  (Safe, True) -> lookupsWith safeApi True s idx n lat
  (Unsafe, False) -> lookupsWith unsafeApi False s idx n lat
  (Unsafe, True) -> lookupsWith unsafeApi True s idx n lat

-- | Inserts persons 0..n-1 one by one in one write transaction, timed begin to commit.
insertWith :: Api -> Bool -> Store -> Ptr MDBEnv -> Dbi -> Int -> IO Word64
insertWith api copy s env dbi n = alloca $ \pt -> allocaBytes 32 $ \kv -> allocaBytes 256 $ \val -> do
  let (k, v) = (castPtr kv, kv `plusPtr` 16)
      p = sP s
      putRow txn e el vp vl = do
        setVal k e el
        setVal v vp vl
        put api txn dbi k v 0
      row txn i = do
        (e, el) <- email p i
        (nm, nl) <- name p i
        a <- age p i
        if copy
          then do
            -- the key and value as ByteStrings, as a Haskell program holding its data would pass them
            eb <- B.packCStringLen (castPtr e, el)
            vb <- B.cons a <$> B.packCStringLen (castPtr nm, nl)
            BU.unsafeUseAsCStringLen eb $ \(ep, en) -> BU.unsafeUseAsCStringLen vb $ \(vp, vn) ->
              putRow txn (castPtr ep) en (castPtr vp) vn
          else do
            poke val a
            copyBytes (val `plusPtr` 1) nm (min nl 254)
            putRow txn e el val (nl + 1)
  t0 <- getMonotonicTimeNSec
  check "begin the insert" =<< txnBegin api env nullPtr 0 pt
  txn <- peek pt
  let go !i
        | i >= n = txnCommit api txn
        | otherwise = do
            rc <- row txn i
            if rc /= 0 then txnAbort api txn >> pure rc else go (i + 1)
  rc <- go 0
  t1 <- getMonotonicTimeNSec
  when (rc /= 0) $ writeError s rc
  pure (t1 - t0)
{-# INLINE insertWith #-}

-- | Inserts into a fresh environment beside the loaded one, then reads it back (untimed). Without keep
-- it is removed at once; with keep (protocol 2) it stays, closed, for dbbench to read, until drop, and
-- its directory is returned.
insert :: Store -> Int -> Bool -> IO (Tally, Maybe FilePath)
insert s n keep = do
  kept <- readIORef (sKept s)
  when (isJust kept) $ fail1 "insert: the previous insert's store is kept: drop it first"
  k <- atomicModifyIORef' (sInserts s) (\x -> (x + 1, x + 1))
  let dir = sDir s ++ "-insert-" ++ show k
      p = sP s
  longest <- foldM (\m i -> max m . snd <$> name p i) 0 [0 .. n - 1]
  when (longest > 254) $ fail1 "a name is longer than 254 bytes"
  createDirectoryIfMissing True dir
  (env, dbi) <- openEnv dir (cfgMapSize (sCfg s)) maxReaders
  let work = do
        ns <- case (cfgFfi (sCfg s), cfgCopy (sCfg s)) of
          (CLoops, _) -> alloca $ \pns -> alloca $ \done -> do
            rc <- cInsert env dbi (pEmails p) (pEoff p) (pNames p) (pNoff p) (pAges p) (fromIntegral n) 0 pns done
            when (rc /= 0) $ if rc == mdbMapFull then writeError s rc else cError rc >>= fail1
            fromIntegral <$> peek pns
          (Safe, False) -> insertWith safeApi False s env dbi n
          (Safe, True) -> insertWith safeApi True s env dbi n
          (Unsafe, False) -> insertWith unsafeApi False s env dbi n
          (Unsafe, True) -> insertWith unsafeApi True s env dbi n
        (back, _, _) <- scanWith unsafeApi False env dbi (n + 1)
        pure back {tNs = ns}
  r <- try (work `finally` closeEnv env)
  case r of
    Right t | keep -> writeIORef (sKept s) (Just dir) >> pure (t, Just dir)
    _ -> do
      removeDirectoryRecursive dir
      either (\e -> throwIO (e :: SomeException)) (\t -> pure (t, Nothing)) r

-- | K readers, each scanning rows pairs in its own read transaction, released together: Haskell
-- threads (forkOn, so that the threaded RTS spreads them over its capabilities; in the non-threaded
-- RTS they take turns on one OS thread), or the lmdb-c baseline's pthreads. Returns the wall time
-- (release to the last reader's end) and each reader's tally.
concurrent :: Store -> Int -> Int -> IO (Word64, [Tally])
concurrent s k rows = case cfgFfi (sCfg s) of
  CLoops -> allocaArray k $ \lat -> allocaBytes (16 * k) $ \ts -> alloca $ \wall -> do
    rc <- cScanConcurrent (sEnv s) (sDbi s) (fromIntegral k) (fromIntegral rows) lat ts wall
    when (rc /= 0) $ cError rc >>= fail1
    out <- forM [0 .. k - 1] $ \i -> do
      ns <- peekElemOff lat i
      tally (ts `plusPtr` (16 * i)) (fromIntegral ns)
    w <- peek wall
    pure (fromIntegral w, out)
  _ -> do
    ready <- newIORef (0 :: Int)
    go <- newEmptyMVar
    dones <- forM [0 .. k - 1] $ \i -> do
      done <- newEmptyMVar
      _ <- forkOn i $ do
        atomicModifyIORef' ready (\x -> (x + 1, ()))
        readMVar go
        r <- tryAny (scanT (sCfg s) (sEnv s) (sDbi s) rows)
        putMVar done r
      pure done
    let waitReady = do
          n <- readIORef ready
          when (n < k) $ yield >> waitReady
    waitReady
    t0 <- getMonotonicTimeNSec
    putMVar go ()
    rs <- mapM takeMVar dones
    case sequence rs of
      Left e -> fail1 e
      Right xs -> pure (maximum (t0 : [t1 | (_, _, t1) <- xs]) - t0, [t | (t, _, _) <- xs])
  where
    tryAny act = (Right <$> act) `catchAll` (pure . Left)

catchAll :: IO a -> (String -> IO a) -> IO a
catchAll act h = act `catch` \e -> h (show (e :: SomeException))
